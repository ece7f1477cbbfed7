" syntax/gpm.vim: Vim syntax highlighting for .gpm GPU performance models (gpmc; grammar/Gpm.g4).
if exists("b:current_syntax")
  finish
endif

" Keywords (reserved words of grammar/Gpm.g4), in the same categories as the VS Code grammar.
syn keyword gpmInclude      import
syn keyword gpmConditional  if then else
syn keyword gpmRepeat       for in iterate
syn keyword gpmStatement    seq par run copy overhead phase offload flows on after at
syn keyword gpmDeclaration  param let fn type machine app table
syn keyword gpmSection      node socket link data kernel network cluster mpi arbitration
syn keyword gpmModifier     unordered
syn keyword gpmLogical      and or not
syn keyword gpmBoolean      true false

" Built-in functions (frontend/sema_expr.cpp), highlighted where they are called.
syn match gpmBuiltin "\<\%(min\|max\|mod\|abs\|sqrt\|ceil\|floor\|log2\)\ze\s*("

" The name a declaration introduces.
syn match gpmTypeName     "\%(\<\%(machine\|app\|type\)\s\+\)\@<=\h\w*"
syn match gpmFunctionName "\%(\<\%(fn\|kernel\)\s\+\)\@<=\h\w*"
syn match gpmVariableName "\%(\<\%(param\|let\|data\)\s\+\)\@<=\h\w*"
syn match gpmLabelName    "\%(\<\%(phase\|offload\)\s\+\)\@<=\h\w*"

" Operators; defined before the comments so that `//` and `/*` start a comment, not a division.
syn match gpmOperator "<->\|->\|\.\.\|<=\|>=\|==\|!=\|[-+*/^<>=]"

" Numbers (`100`, `0.5`, `1.5e3`, `2E-6`) and the unit words of a quantity (`16 GB/s`, `4KiB`; support/units.cpp).
syn match gpmNumber "\<\d\+\%(\.\d\+\)\=\%([eE][+-]\=\d\+\)\="
syn match gpmUnit "\%(\<\d\+\%(\.\d\+\)\=\%([eE][+-]\=\d\+\)\=[ \t]*\)\@<=\%(PiB\|TiB\|GiB\|MiB\|KiB\|Pflop\|Tflop\|Gflop\|Mflop\|Kflop\|flop\|GHz\|MHz\|kHz\|Hz\|PB\|TB\|GB\|MB\|KB\|kB\|Tb\|Gb\|Mb\|Kb\|GT\|MT\|KT\|Gi\|Mi\|Ki\|ms\|us\|ns\|ps\|B\|b\|T\|s\)\%(/\%(PiB\|TiB\|GiB\|MiB\|KiB\|Pflop\|Tflop\|Gflop\|Mflop\|Kflop\|flop\|GHz\|MHz\|kHz\|Hz\|PB\|TB\|GB\|MB\|KB\|kB\|Tb\|Gb\|Mb\|Kb\|GT\|MT\|KT\|Gi\|Mi\|Ki\|ms\|us\|ns\|ps\|B\|b\|T\|s\)\)*\>"

" Strings (import paths) have no escapes and end at the line.
syn match gpmString +"[^"]*"+
syn match gpmUnterminatedString +"[^"]*$+

" Comments: `// ...` to the end of the line, `/* ... */` across lines (not nested).
syn keyword gpmTodo contained TODO FIXME XXX NOTE
syn match  gpmLineComment "//.*$" contains=gpmTodo,@Spell
syn region gpmBlockComment start="/\*" end="\*/" contains=gpmTodo,@Spell

hi def link gpmInclude            Include
hi def link gpmConditional        Conditional
hi def link gpmRepeat             Repeat
hi def link gpmStatement          Statement
hi def link gpmDeclaration        Keyword
hi def link gpmSection            Structure
hi def link gpmModifier           StorageClass
hi def link gpmLogical            Operator
hi def link gpmBoolean            Boolean
hi def link gpmBuiltin            Function
hi def link gpmTypeName           Type
hi def link gpmFunctionName       Function
hi def link gpmVariableName       Identifier
hi def link gpmLabelName          Label
hi def link gpmOperator           Operator
hi def link gpmNumber             Number
hi def link gpmUnit               Type
hi def link gpmString             String
hi def link gpmUnterminatedString Error
hi def link gpmTodo               Todo
hi def link gpmLineComment        Comment
hi def link gpmBlockComment       Comment

let b:current_syntax = "gpm"

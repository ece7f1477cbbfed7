// Gpm.g4: the grammar of .gpm performance models (machines, apps, functions, params).
grammar Gpm;

file : topDecl* EOF ;

// `--set name=value` parses its value with this rule.
standaloneExpr : expr EOF ;

topDecl
  : importDecl
  | tableDecl
  | paramDecl
  | letDecl
  | fnDecl
  | typeDecl
  | machineDecl
  | appDecl
  ;

importDecl : 'import' STRING ';'? ;

// A table of numbers read from a CSV file (the path from the declaring file's folder): `table routing =
// "routing.csv"`; `routing(i, j)` is the number at row i, column j (from 0).
tableDecl : 'table' IDENT '=' STRING ';'? ;

paramDecl : 'param' paramItem (',' paramItem)* ';'? ;
// A number in a range (`param n = 4096 in 1 .. 65536`), or a word from a declared set
// (`param direction = h2d in {h2d, d2h}`): a word parameter, usable where the language takes such a word.
paramItem : IDENT '=' expr ('in' (expr '..' expr | wordSet))? ;
wordSet : '{' IDENT (',' IDENT)* '}' ;

letDecl : 'let' IDENT '=' expr ';'? ;

fnDecl : 'fn' IDENT '(' (fnParam (',' fnParam)*)? ')' '->' dimType '=' expr ';'? ;
fnParam : IDENT ':' dimType ;

// A dimension type: time, bytes, flops, count and their products, quotients and powers.
dimType : dimFactor (dimOp=('*' | '/') dimFactor)* ;
dimFactor
  : IDENT ('^' NUMBER)?
  | NUMBER
  | '(' dimType ')'
  ;

// Component types: `type V100 : gpu { peak_fp64 = 7.8 Tflop/s }`.
typeDecl : 'type' IDENT ':' kind=(IDENT | 'link') attrBlock ;
attrBlock : '{' attr* '}' ;
// `overhead` is a statement's keyword and also the name of the mpi section's software latency per message.
attr : name=(IDENT | 'overhead') '=' expr ';'? ;

machineDecl : 'machine' IDENT '{' machineItem* '}' ;
machineItem
  : paramDecl
  | letDecl
  | nodeDecl
  | arbitrationDecl
  | mpiDecl
  | networkDecl
  | clusterDecl
  | attr
  ;

// How shared links divide their bandwidth: `arbitration pcie on PCIe3 { tau = 0.17 }` (links of type PCIe3),
// `arbitration maxmin` (every link no other arbitration names).
arbitrationDecl : 'arbitration' kind=IDENT ('on' linkType=IDENT)? attrBlock? ';'? ;

// The machine's MPI description: thresholds, ranks, mapping, and one fit per locality class, protocol and model:
// `inter_node rendezvous maxrate(9.33e-6 s, 1.23e10 B/s, 2.58e7 B/s)`.
mpiDecl : 'mpi' '{' mpiItem* '}' ;
mpiItem
  : mpiFit
  | attr
  ;
mpiFit : locality=IDENT protocol=IDENT model=IDENT '(' expr (',' expr)* ')' ';'? ;

// The network between the nodes, for MPI messages: `network { topology = fattree; nodes_per_leaf = 18; ... }`.
networkDecl : 'network' attrBlock ';'? ;

// N copies of the machine's node joined by a switched network the compiler builds: `cluster { nodes = 32;
// topology = fat_tree; nics_per_leaf = 16; spines = 4; link_bw = 400 Gb/s }`; components `node[3].g[5]`, `leaf[0]`.
clusterDecl : 'cluster' attrBlock ';'? ;

nodeDecl : 'node' '{' nodeItem* '}' ;
nodeItem
  : socketDecl
  | linkDecl
  | componentDecl
  | attr
  ;
socketDecl : 'socket' IDENT arraySuffix? '{' nodeItem* '}' ;
componentDecl : kind=IDENT IDENT arraySuffix? (':' typeName=IDENT)? attrBlock? ';'? ;
arraySuffix : '[' expr ']' ;

linkDecl : 'link' linkPair (',' linkPair)* (':' typeName=IDENT)? attrBlock? ';'? ;
linkPair : compRef arrow=('<->' | '->') compRef ;
compRef : refPart ('.' refPart)* ;
refPart : (IDENT | 'node') ('[' (star='*' | expr) ']')? ;

appDecl : 'app' IDENT '{' appItem* '}' ;
appItem
  : paramDecl
  | letDecl
  | dataDecl
  | kernelDecl
  | stmt
  ;
dataDecl : 'data' dataName (',' dataName)* ':' placement=IDENT hostKind=IDENT? '(' expr ')' ';'? ;
dataName : IDENT ;
kernelDecl : 'kernel' IDENT ('on' compRef)? attrBlock ;

// `for i in LO .. HI { ... }` repeats its body once per whole number from LO to HI (both included), with `i`
// bound to it; the iterations stand in the enclosing block as its children (in a `par`, side by side).
stmt
  : 'run' IDENT ('on' compRef)? attrBlock? ';'?              # runStmt
  | 'copy' direction=IDENT expr fromWord=IDENT src=compRef toWord=IDENT dst=compRef ';'?  # peerCopyStmt
  | 'copy' direction=IDENT expr hostKind=IDENT? ('on' compRef)? (memWord=IDENT mem=compRef)? attrBlock? ';'?  # copyStmt
  | 'seq' block                                              # seqStmt
  | 'par' block                                              # parStmt
  | 'iterate' expr block                                     # iterateStmt
  | 'phase' IDENT block                                      # phaseStmt
  | 'overhead' expr ';'?                                     # overheadStmt
  | 'flows' unordered='unordered'? '{' flowEntry* '}'         # flowsStmt
  | 'mpi' op=IDENT attrBlock? ';'?                           # mpiStmt
  | 'offload' IDENT ('on' compRef)? offloadBlock             # offloadStmt
  | 'for' IDENT 'in' lo=expr '..' hi=expr block              # forStmt
  ;
// An offload's attributes and its cross-stream dependencies: `kernel after h2d(next), h2d(first)` makes the
// kernel of each stream wait for the h2d copy of the next stream and of the first one.
offloadBlock : '{' (attr | offloadWait)* '}' ;
offloadWait : op=(IDENT | 'kernel') 'after' offloadWaitTarget (',' offloadWaitTarget)* ';'? ;
offloadWaitTarget : op=(IDENT | 'kernel') '(' which=IDENT ')' ;
// One flow of a dynamic congestion graph: `a: g[0] -> g[2] 300 MB`, optionally `at TIME` or `after LABEL`.
flowEntry : flowItem | flowPattern | flowLoop ;
flowItem : (label=IDENT ':')? src=compRef '->' dst=compRef expr ('at' start=expr | 'after' after=IDENT)? ';'? ;
// A pattern of flows among a set of endpoints: `all_to_all h[*] 1 MB`, `shift(3) h[*] 1 MB`, optionally `at TIME`.
flowPattern : pattern=IDENT ('(' patternArg=expr ')')? members=compRef size=expr ('at' start=expr)? ';'? ;
// The flows of a loop's body once per value of its variable: `for i in 0 .. 6 { g[i] -> g[i + 1] 1 MB }`.
flowLoop : 'for' IDENT 'in' lo=expr '..' hi=expr '{' flowEntry* '}' ;
block : '{' stmt* '}' ;

// `^` is parsed left-associative; a chain `a ^ b ^ c` is rejected when the AST is built.
expr
  : primary                                                  # primaryExpr
  | expr '^' expr                                            # powExpr
  | op=('-' | '+') expr                                      # unaryExpr
  | expr op=('*' | '/') expr                                 # mulExpr
  | expr op=('+' | '-') expr                                 # addExpr
  | expr op=('<' | '<=' | '>' | '>=' | '==' | '!=') expr     # cmpExpr
  | 'not' expr                                               # notExpr
  | expr 'and' expr                                          # andExpr
  | expr 'or' expr                                           # orExpr
  | 'if' expr 'then' expr 'else' expr                        # ifExpr
  ;

primary
  : QUANTITY                                                 # quantityLit
  | NUMBER                                                   # numberLit
  | ('true' | 'false')                                       # boolLit
  | IDENT '(' (arg (',' arg)*)? ')'                          # callExpr
  | IDENT                                                    # nameRef
  | '(' expr ')'                                             # parenExpr
  ;
arg : (IDENT '=')? expr ;

// ---- lexer ----
// A quantity is a number followed by a unit written without spaces (`16 GB/s`, `4KiB`).
QUANTITY : NUM [ \t]* UNIT ('/' UNIT)* ;
NUMBER : NUM ;
fragment NUM : [0-9]+ ('.' [0-9]+)? ([eE] [+\-]? [0-9]+)? ;
fragment UNIT
  : 's' | 'ms' | 'us' | 'ns' | 'ps'
  | 'B' | 'kB' | 'KB' | 'MB' | 'GB' | 'TB' | 'PB' | 'KiB' | 'MiB' | 'GiB' | 'TiB' | 'PiB'
  | 'b' | 'Kb' | 'Mb' | 'Gb' | 'Tb'
  | 'flop' | 'Kflop' | 'Mflop' | 'Gflop' | 'Tflop' | 'Pflop'
  | 'T' | 'KT' | 'MT' | 'GT'
  | 'Hz' | 'kHz' | 'MHz' | 'GHz'
  | 'Ki' | 'Mi' | 'Gi'
  ;
IDENT : [a-zA-Z_] [a-zA-Z_0-9]* ;
// Strings (import and table paths) have no escapes and end at the line.
STRING : '"' ~["\r\n]* '"' ;
UNTERMINATED_STRING : '"' ~["\r\n]* ;
LINE_COMMENT : '//' ~[\r\n]* -> skip ;
BLOCK_COMMENT : '/*' .*? '*/' -> skip ;
UNTERMINATED_COMMENT : '/*' ( ~'*' | '*'+ ~[*/] )* '*'* EOF ;
WS : [ \t\r\n]+ -> skip ;
ERROR_CHAR : . ;

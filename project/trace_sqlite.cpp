// trace_sqlite.cpp: a trace from an Nsight Systems SQLite export: its CUPTI_ACTIVITY_KIND_MEMCPY and
// CUPTI_ACTIVITY_KIND_KERNEL tables, read through libsqlite3, opened read-only.
#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "project/trace.h"

namespace gpm::project {

using support::DiagKind;

namespace {

// The Nsight Systems export stores CUPTI's activity records with their enums as integers (Nsight Systems
// "SQLite Export Schema Reference"; CUPTI's CUpti_ActivityMemcpyKind and CUpti_ActivityMemoryKind, unchanged
// from CUDA 8 to CUDA 13): copyKind 1 HtoD, 2 DtoH, 3 HtoA, 4 AtoH, 5 AtoA, 6 AtoD, 7 DtoA, 8 DtoD, 9 HtoH,
// 10 PtoP; srcKind/dstKind 1 pageable, 2 pinned, 3 device, 4 array, 5 managed, 6 device static, 7 managed static.
const char* copy_kind_label(int64_t kind) {
  static const char* const labels[] = {"copyKind 0 (unknown)", "h2d", "d2h", "HtoA (to a CUDA array)",
                                       "AtoH (from a CUDA array)", "AtoA (between CUDA arrays)",
                                       "AtoD (from a CUDA array)", "DtoA (to a CUDA array)", "d2d",
                                       "HtoH (host to host)", "p2p"};
  return kind >= 0 && kind <= 10 ? labels[kind] : nullptr;
}

const char* memory_kind_label(int64_t kind) {
  static const char* const labels[] = {"unknown", "pageable", "pinned", "device", "array", "managed",
                                       "device static", "managed static"};
  return kind >= 0 && kind <= 7 ? labels[kind] : "unknown";
}

struct Closer {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
  void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};
using Database = std::unique_ptr<sqlite3, Closer>;
using Statement = std::unique_ptr<sqlite3_stmt, Closer>;

class Reader {
 public:
  Reader(const std::string& path, const std::string& what, support::DiagnosticEngine& diags)
      : path_(path), what_(what), diags_(diags) {}

  bool open() {
    sqlite3* raw = nullptr;
    int rc = sqlite3_open_v2(path_.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
    db_.reset(raw);
    return rc == SQLITE_OK || fail_sqlite("cannot open it");
  }

  // Whether TABLE exists; its columns in `columns`. False after reporting when the database cannot be read.
  bool table_columns(const std::string& table, bool& exists, std::set<std::string>& columns) {
    Statement statement;
    if (!prepare("SELECT name FROM pragma_table_info(?1)", statement)) return false;
    sqlite3_bind_text(statement.get(), 1, table.c_str(), -1, SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(statement.get())) == SQLITE_ROW)
      columns.insert(reinterpret_cast<const char*>(sqlite3_column_text(statement.get(), 0)));
    if (rc != SQLITE_DONE) return fail_sqlite("cannot read its schema");
    exists = !columns.empty();
    return true;
  }

  bool require_columns(const std::string& table, const std::set<std::string>& have,
                       const std::vector<std::string>& need) {
    for (const auto& column : need) {
      if (have.count(column)) continue;
      error(fmt::format("table {} has no column `{}` (it needs {}): is this an Nsight Systems export?", table,
                        column, join(need)));
      return false;
    }
    return true;
  }

  bool prepare(const std::string& sql, Statement& out) {
    sqlite3_stmt* raw = nullptr;
    int rc = sqlite3_prepare_v2(db_.get(), sql.c_str(), -1, &raw, nullptr);
    out.reset(raw);
    return rc == SQLITE_OK || fail_sqlite("cannot read it");
  }

  // An integer cell of the current row; false after reporting a NULL, a text or a real that is not whole.
  bool integer(sqlite3_stmt* statement, int column, const char* table, int64_t rowid, int64_t& value) {
    int type = sqlite3_column_type(statement, column);
    const char* name = sqlite3_column_name(statement, column);
    if (type == SQLITE_INTEGER) {
      value = sqlite3_column_int64(statement, column);
      return true;
    }
    error(fmt::format("table {}, row {}: column {} is {}, not an integer", table, rowid, name,
                      type == SQLITE_NULL ? "NULL" : type == SQLITE_FLOAT ? "a real number" : "text or a blob"));
    return false;
  }

  bool fail_sqlite(const std::string& doing) {
    error(fmt::format("{}: SQLite says: {}", doing, db_ ? sqlite3_errmsg(db_.get()) : "out of memory"));
    return false;
  }

  void error(const std::string& message) {
    diags_.error(DiagKind::MalformedTrace, {}, fmt::format("{} `{}`: {}", what_, path_, message));
  }

  // start/end in ns to a duration; false after reporting one that is missing or negative.
  bool duration(const char* table, int64_t rowid, int64_t start, int64_t end, double& seconds) {
    if (start == 0 && end == 0) {
      error(fmt::format("table {}, row {}: no timestamps (start and end are 0: CUPTI could not time it)", table, rowid));
      return false;
    }
    if (end < start) {
      error(fmt::format("table {}, row {}: end {} ns is before start {} ns", table, rowid, end, start));
      return false;
    }
    if (end == start) {
      error(fmt::format("table {}, row {}: a duration of 0 ns cannot weigh a relative error", table, rowid));
      return false;
    }
    seconds = double(end - start) * 1e-9;
    return true;
  }

  static std::string join(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
  }

  sqlite3* db() { return db_.get(); }
  const std::string& path() const { return path_; }

 private:
  std::string path_, what_;
  support::DiagnosticEngine& diags_;
  Database db_;
};

constexpr const char* kMemcpy = "CUPTI_ACTIVITY_KIND_MEMCPY";
constexpr const char* kKernel = "CUPTI_ACTIVITY_KIND_KERNEL";

// `peers`: the table has srcDeviceId and dstDeviceId, the two GPUs of a peer copy; `devices`: it has deviceId,
// the GPU of every other copy.
bool read_copies(Reader& reader, bool peers, bool devices, Trace& out, int64_t origin) {
  Statement statement;
  if (!reader.prepare(fmt::format("SELECT rowid, start, end, streamId, bytes, copyKind, srcKind, dstKind, {}, {} FROM {} "
                                  "ORDER BY start, rowid",
                                  peers ? "srcDeviceId, dstDeviceId" : "NULL, NULL", devices ? "deviceId" : "NULL",
                                  kMemcpy),
                      statement))
    return false;
  int rc;
  while ((rc = sqlite3_step(statement.get())) == SQLITE_ROW) {
    int64_t v[8];
    v[0] = sqlite3_column_int64(statement.get(), 0);
    for (int c = 1; c < 8; ++c)
      if (!reader.integer(statement.get(), c, kMemcpy, v[0], v[c])) return false;
    int64_t rowid = v[0], start = v[1], end = v[2], stream = v[3], bytes = v[4], kind = v[5];
    if (bytes < 0) {
      reader.error(fmt::format("table {}, row {}: bytes is negative ({})", kMemcpy, rowid, bytes));
      return false;
    }
    double seconds = 0;
    if (!reader.duration(kMemcpy, rowid, start, end, seconds)) return false;
    const char* label = copy_kind_label(kind);
    if (!label) {
      count_skipped(out.skipped, fmt::format("copyKind {} (not a CUPTI copy kind gpmc knows)", kind), double(bytes),
                    seconds);
      continue;
    }
    TraceCopy copy;
    std::string host_kind;
    if (kind == 1 || kind == 2) {
      int64_t host = kind == 1 ? v[6] : v[7];
      copy.kind = kind == 1 ? CopyKind::H2D : CopyKind::D2H;
      if (host == 1 || host == 2) {
        copy.memory = host == 1 ? HostMemory::Pageable : HostMemory::Pinned;
      } else {
        count_skipped(out.skipped, fmt::format("{} {} {} memory", label, kind == 1 ? "from" : "to",
                                               memory_kind_label(host)),
                      double(bytes), seconds);
        continue;
      }
    } else if (kind == 8) {
      copy.kind = CopyKind::D2D;
      copy.memory = HostMemory::None;
    } else if (kind == 10 && !peers) {
      count_skipped(out.skipped, "p2p (the table has no srcDeviceId and dstDeviceId columns)", double(bytes), seconds);
      continue;
    } else if (kind == 10) {
      copy.kind = CopyKind::P2P;
      copy.memory = HostMemory::None;
      if (!reader.integer(statement.get(), 8, kMemcpy, rowid, copy.src_gpu) ||
          !reader.integer(statement.get(), 9, kMemcpy, rowid, copy.dst_gpu))
        return false;
      if (copy.src_gpu < 0 || copy.dst_gpu < 0 || copy.src_gpu == copy.dst_gpu) {
        reader.error(fmt::format("table {}, row {}: a peer copy from device {} to device {}", kMemcpy, rowid,
                                 copy.src_gpu, copy.dst_gpu));
        return false;
      }
    } else {
      count_skipped(out.skipped, label, double(bytes), seconds);
      continue;
    }
    if (devices && copy.kind != CopyKind::P2P) {
      if (!reader.integer(statement.get(), 10, kMemcpy, rowid, copy.gpu)) return false;
      if (copy.gpu < 0) {
        reader.error(fmt::format("table {}, row {}: deviceId is negative ({})", kMemcpy, rowid, copy.gpu));
        return false;
      }
    }
    copy.bytes = double(bytes);
    copy.stream = stream;
    copy.start_s = double(start - origin) * 1e-9;
    copy.duration_s = seconds;
    copy.where = fmt::format("{}: {} row {}", reader.path(), kMemcpy, rowid);
    out.copies.push_back(std::move(copy));
  }
  return rc == SQLITE_DONE || reader.fail_sqlite(fmt::format("cannot read table {}", kMemcpy));
}

std::map<int64_t, std::string> read_string_ids(Reader& reader) {
  std::map<int64_t, std::string> names;
  Statement statement;
  if (!reader.prepare("SELECT id, value FROM StringIds", statement)) return names;
  while (sqlite3_step(statement.get()) == SQLITE_ROW) {
    const unsigned char* text = sqlite3_column_text(statement.get(), 1);
    names[sqlite3_column_int64(statement.get(), 0)] = text ? reinterpret_cast<const char*>(text) : "";
  }
  return names;
}

bool read_kernels(Reader& reader, bool named, Trace& out, int64_t origin) {
  std::map<int64_t, std::string> names;
  if (named) names = read_string_ids(reader);
  Statement statement;
  if (!reader.prepare(fmt::format("SELECT rowid, start, end, streamId{} FROM {} ORDER BY start, rowid",
                                  named ? ", shortName" : "", kKernel),
                      statement))
    return false;
  int rc;
  while ((rc = sqlite3_step(statement.get())) == SQLITE_ROW) {
    int64_t rowid = sqlite3_column_int64(statement.get(), 0), start = 0, end = 0, stream = 0, name = -1;
    if (!reader.integer(statement.get(), 1, kKernel, rowid, start) ||
        !reader.integer(statement.get(), 2, kKernel, rowid, end) ||
        !reader.integer(statement.get(), 3, kKernel, rowid, stream))
      return false;
    if (named && sqlite3_column_type(statement.get(), 4) == SQLITE_INTEGER)
      name = sqlite3_column_int64(statement.get(), 4);
    double seconds = 0;
    if (!reader.duration(kKernel, rowid, start, end, seconds)) return false;
    auto found = names.find(name);
    out.kernels.push_back(
        {found == names.end() ? std::string() : found->second, stream, double(start - origin) * 1e-9, seconds});
  }
  return rc == SQLITE_DONE || reader.fail_sqlite(fmt::format("cannot read table {}", kKernel));
}

// The earliest integer start of either table (0 when they are empty).
bool first_start(Reader& reader, bool has_memcpy, bool has_kernel, int64_t& origin) {
  std::string sql;
  if (has_memcpy) sql = fmt::format("SELECT min(start) FROM {} WHERE typeof(start) = 'integer'", kMemcpy);
  if (has_kernel)
    sql += fmt::format("{}SELECT min(start) FROM {} WHERE typeof(start) = 'integer'", sql.empty() ? "" : " UNION ALL ",
                       kKernel);
  Statement statement;
  if (!reader.prepare(sql, statement)) return false;
  bool found = false;
  int rc;
  while ((rc = sqlite3_step(statement.get())) == SQLITE_ROW) {
    if (sqlite3_column_type(statement.get(), 0) != SQLITE_INTEGER) continue;
    int64_t start = sqlite3_column_int64(statement.get(), 0);
    origin = found ? std::min(origin, start) : start;
    found = true;
  }
  return rc == SQLITE_DONE || reader.fail_sqlite("cannot read it");
}

}  // namespace

bool read_nsight_sqlite_trace(const std::string& path, const std::string& what, support::DiagnosticEngine& diags,
                              Trace& out) {
  Reader reader(path, what, diags);
  if (!reader.open()) return false;
  bool has_memcpy = false, has_kernel = false;
  std::set<std::string> memcpy_columns, kernel_columns;
  if (!reader.table_columns(kMemcpy, has_memcpy, memcpy_columns) ||
      !reader.table_columns(kKernel, has_kernel, kernel_columns))
    return false;
  if (!has_memcpy && !has_kernel) {
    reader.error(fmt::format("the database has neither table {} nor {}: is this an Nsight Systems export of a CUDA "
                             "run (`nsys export --type sqlite`)?",
                             kMemcpy, kKernel));
    return false;
  }
  if (has_memcpy && !reader.require_columns(kMemcpy, memcpy_columns,
                                            {"start", "end", "streamId", "bytes", "copyKind", "srcKind", "dstKind"}))
    return false;
  if (has_kernel && !reader.require_columns(kKernel, kernel_columns, {"start", "end", "streamId"})) return false;
  out.path = path;
  out.format = "nsight-sqlite";
  // Start times are kept relative to the first operation of the trace (Nsight's are ns since its own epoch).
  int64_t origin = 0;
  if (!first_start(reader, has_memcpy, has_kernel, origin)) return false;
  bool peers = memcpy_columns.count("srcDeviceId") && memcpy_columns.count("dstDeviceId");
  if (has_memcpy && !read_copies(reader, peers, memcpy_columns.count("deviceId") > 0, out, origin)) return false;
  if (has_kernel && !read_kernels(reader, kernel_columns.count("shortName") > 0, out, origin)) return false;
  return true;
}

}  // namespace gpm::project

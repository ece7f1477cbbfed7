// make_sqlite.cpp: test fixture maker: runs an SQL text file into a new SQLite database, optionally damaged.
// Usage: make_sqlite OUT.sqlite SCRIPT.sql [--truncate BYTES] [--overwrite-from BYTES]
//   --truncate N        keeps only the first N bytes of the database file (a cut-off download)
//   --overwrite-from N  overwrites every byte from offset N on with 0xA5 (a corrupt file with a valid header)
#include <sqlite3.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

int main(int argc, char** argv) {
  if (argc != 3 && argc != 5) {
    std::cerr << "usage: make_sqlite OUT.sqlite SCRIPT.sql [--truncate BYTES | --overwrite-from BYTES]\n";
    return 2;
  }
  std::string out = argv[1];
  std::ifstream script_file(argv[2]);
  if (!script_file) {
    std::cerr << "make_sqlite: cannot read " << argv[2] << "\n";
    return 2;
  }
  std::stringstream script;
  script << script_file.rdbuf();
  std::filesystem::create_directories(std::filesystem::path(out).parent_path());
  std::filesystem::remove(out);
  sqlite3* db = nullptr;
  if (sqlite3_open(out.c_str(), &db) != SQLITE_OK) {
    std::cerr << "make_sqlite: cannot create " << out << "\n";
    return 2;
  }
  char* message = nullptr;
  if (sqlite3_exec(db, script.str().c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::cerr << "make_sqlite: " << argv[2] << ": " << (message ? message : "error") << "\n";
    return 2;
  }
  sqlite3_close(db);
  if (argc == 5) {
    std::string option = argv[3];
    auto offset = std::strtoull(argv[4], nullptr, 10);
    if (option == "--truncate") {
      std::filesystem::resize_file(out, offset);
    } else if (option == "--overwrite-from") {
      auto size = std::filesystem::file_size(out);
      std::fstream file(out, std::ios::in | std::ios::out | std::ios::binary);
      file.seekp(std::streamoff(offset));
      for (auto i = offset; i < size; ++i) file.put(char(0xA5));
    } else {
      std::cerr << "make_sqlite: unknown option " << option << "\n";
      return 2;
    }
  }
  return 0;
}

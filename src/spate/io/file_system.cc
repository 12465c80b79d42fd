// Copyright spate authors.
#include "spate/io/file_system.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>

#include "spate/base/mapped_allocator.h"

namespace spate::io {

namespace {

Status PosixError(std::string_view op, const std::string& path, int err) {
  std::string msg = std::string(op) + " '" + path + "': " + std::strerror(err);
  if (err == ENOENT) return Status::NotFound(std::move(msg));
  if (err == EEXIST) return Status(StatusCode::kAlreadyExists, std::move(msg));
  return Status::IOError(std::move(msg));
}

class LocalReadFile final : public RandomAccessFile {
 public:
  LocalReadFile(std::string path, int fd, int64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}
  ~LocalReadFile() override { ::close(fd_); }
  int64_t Size() const override { return size_; }
  const std::string& path() const override { return path_; }
  Status ReadAt(int64_t offset, int64_t length, std::string* out) const override {
    if (length < 0 || length > size_) return ReadInto(offset, length, nullptr);
    out->resize(static_cast<size_t>(length));
    return ReadInto(offset, length, reinterpret_cast<uint8_t*>(out->data()));
  }
  Status ReadInto(int64_t offset, int64_t length, uint8_t* out) const override {
    if (offset < 0 || length < 0 || offset > size_ || length > size_ - offset) {
      return Status::IOError("read of " + std::to_string(length) + " bytes at offset " +
                             std::to_string(offset) + " is past the end of '" + path_ +
                             "' (size " + std::to_string(size_) + ")");
    }
    int64_t done = 0;
    while (done < length) {
      ssize_t n =
          ::pread(fd_, out + done, static_cast<size_t>(length - done), offset + done);
      if (n < 0) {
        if (errno == EINTR) continue;
        return PosixError("read", path_, errno);
      }
      if (n == 0) return Status::IOError("unexpected end of file '" + path_ + "'");
      done += n;
    }
    return Status::OK();
  }

 private:
  std::string path_;
  int fd_;
  int64_t size_;
};

class LocalWritableFile final : public WritableFile {
 public:
  LocalWritableFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~LocalWritableFile() override {
    if (fd_ >= 0) (void)Close();
  }
  const std::string& path() const override { return path_; }
  int64_t Position() const override { return pos_; }
  Status Append(std::string_view data) override {
    if (fd_ < 0) return Status::IOError("append to closed file '" + path_ + "'");
    pos_ += static_cast<int64_t>(data.size());
    if (buf_.size() + data.size() > kBufSize) {
      SPATE_RETURN_IF_ERROR(FlushBuffer());
      if (data.size() >= kBufSize) return WriteRaw(data);
    }
    buf_.append(data);
    return Status::OK();
  }
  Status Sync() override {
    SPATE_RETURN_IF_ERROR(FlushBuffer());
    if (::fsync(fd_) != 0) return PosixError("fsync", path_, errno);
    return Status::OK();
  }
  Status Close() override {
    if (fd_ < 0) return Status::IOError("close of closed file '" + path_ + "'");
    Status st = FlushBuffer();
    if (::close(fd_) != 0 && st.ok()) st = PosixError("close", path_, errno);
    fd_ = -1;
    return st;
  }

 private:
  static constexpr size_t kBufSize = 1 << 20;
  Status FlushBuffer() {
    Status st = WriteRaw(buf_);
    buf_.clear();
    return st;
  }
  Status WriteRaw(std::string_view data) {
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = ::write(fd_, data.data() + done, data.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        return PosixError("write", path_, errno);
      }
      done += static_cast<size_t>(n);
    }
    return Status::OK();
  }
  std::string path_;
  int fd_;
  int64_t pos_ = 0;
  // Up to ~2 MiB for a large file: mapped apart from malloc (base/mapped_allocator.h), so
  // its free does not raise glibc's dynamic mmap threshold (an auto-compaction's file).
  MappedString buf_;
};

Status WriteWholeFd(int fd, std::string_view data, const std::string& path) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return PosixError("write", path, errno);
    }
    done += static_cast<size_t>(n);
  }
  return Status::OK();
}

Status FsyncDir(const std::string& dir) {
  std::string d = dir.empty() ? "." : dir;
  int fd = ::open(d.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return PosixError("open directory", d, errno);
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return PosixError("fsync directory", d, err);
  return Status::OK();
}

std::string TempName(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  thread_local std::mt19937_64 rng(std::random_device{}());
  return JoinPath(ParentPath(path), "." + BaseName(path) + "." +
                                        std::to_string(::getpid()) + "." +
                                        std::to_string(counter++) + "." +
                                        std::to_string(rng() % 1000000) + ".tmp");
}

// Writes data to a fresh temp file next to `path`, fsynced; returns its name.
Result<std::string> WriteTemp(const std::string& path, std::string_view data) {
  std::string tmp = TempName(path);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return PosixError("create", tmp, errno);
  Status st = WriteWholeFd(fd, data, tmp);
  if (st.ok() && ::fsync(fd) != 0) st = PosixError("fsync", tmp, errno);
  ::close(fd);
  if (!st.ok()) {
    ::unlink(tmp.c_str());
    return st;
  }
  return tmp;
}

Status ListRec(const std::string& dir, bool recursive, std::vector<FileInfo>* out) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return PosixError("list directory", dir, errno);
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n == "." || n == "..") continue;
    names.push_back(std::move(n));
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  for (const auto& n : names) {
    std::string p = JoinPath(dir, n);
    struct stat st;
    if (::stat(p.c_str(), &st) != 0) continue;  // vanished meanwhile
    FileInfo info;
    info.path = p;
    info.is_directory = S_ISDIR(st.st_mode);
    info.size = info.is_directory ? 0 : st.st_size;
    info.modification_time_ms =
        static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
    out->push_back(info);
    if (recursive && info.is_directory) SPATE_RETURN_IF_ERROR(ListRec(p, true, out));
  }
  return Status::OK();
}

}  // namespace

Result<std::string> FileSystem::ReadAll(const std::string& path) {
  SPATE_ASSIGN_OR_RETURN(auto f, OpenForRead(path));
  std::string out;
  SPATE_RETURN_IF_ERROR(f->ReadAt(0, f->Size(), &out));
  return out;
}

const std::shared_ptr<LocalFileSystem>& LocalFileSystem::Get() {
  static const auto* fs =
      new std::shared_ptr<LocalFileSystem>(std::make_shared<LocalFileSystem>());
  return *fs;
}

Result<std::unique_ptr<RandomAccessFile>> LocalFileSystem::OpenForRead(
    const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return PosixError("open", path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return PosixError("stat", path, err);
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return Status::IOError("open '" + path + "': is a directory");
  }
  return std::unique_ptr<RandomAccessFile>(
      std::make_unique<LocalReadFile>(path, fd, st.st_size));
}

Result<std::unique_ptr<WritableFile>> LocalFileSystem::Create(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return PosixError("create", path, errno);
  return std::unique_ptr<WritableFile>(std::make_unique<LocalWritableFile>(path, fd));
}

Result<std::vector<FileInfo>> LocalFileSystem::List(const std::string& path,
                                                    bool recursive) {
  std::vector<FileInfo> out;
  SPATE_RETURN_IF_ERROR(ListRec(path, recursive, &out));
  std::sort(out.begin(), out.end(),
            [](const FileInfo& a, const FileInfo& b) { return a.path < b.path; });
  return out;
}

Result<FileInfo> LocalFileSystem::Stat(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return PosixError("stat", path, errno);
  FileInfo info;
  info.path = path;
  info.is_directory = S_ISDIR(st.st_mode);
  info.size = info.is_directory ? 0 : st.st_size;
  info.modification_time_ms =
      static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
  return info;
}

Result<bool> LocalFileSystem::Exists(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return true;
  if (errno == ENOENT || errno == ENOTDIR) return false;
  return PosixError("stat", path, errno);
}

Status LocalFileSystem::SyncDir(const std::string& dir) { return FsyncDir(dir); }

Status LocalFileSystem::MakeDirs(const std::string& path) {
  if (path.empty()) return Status::OK();
  std::string cur;
  size_t i = 0;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    cur = path.substr(0, j);
    i = j + 1;
    if (cur.empty()) continue;
    if (::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST)
      return PosixError("mkdir", cur, errno);
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Status::IOError("mkdir '" + path + "': exists and is not a directory");
  }
  return Status::OK();
}

Status LocalFileSystem::Rename(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    return PosixError("rename '" + from + "' to", to, errno);
  }
  return Status::OK();
}

Status LocalFileSystem::Delete(const std::string& path, bool recursive) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return PosixError("delete", path, errno);
  if (S_ISDIR(st.st_mode)) {
    if (recursive) {
      std::vector<FileInfo> entries;
      SPATE_RETURN_IF_ERROR(ListRec(path, false, &entries));
      for (const auto& e : entries) SPATE_RETURN_IF_ERROR(Delete(e.path, true));
    }
    if (::rmdir(path.c_str()) != 0) return PosixError("delete directory", path, errno);
    return Status::OK();
  }
  if (::unlink(path.c_str()) != 0) return PosixError("delete", path, errno);
  return Status::OK();
}

Status LocalFileSystem::WriteAtomic(const std::string& path, std::string_view data) {
  SPATE_ASSIGN_OR_RETURN(std::string tmp, WriteTemp(path, data));
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return PosixError("rename temp file to", path, err);
  }
  return FsyncDir(ParentPath(path));
}

Status LocalFileSystem::PutIfAbsent(const std::string& path, std::string_view data) {
  // Write the full contents to a temp file, then link() it under the final name: link
  // fails with EEXIST when the name exists, and readers never see a partial file.
  SPATE_ASSIGN_OR_RETURN(std::string tmp, WriteTemp(path, data));
  int rc = ::link(tmp.c_str(), path.c_str());
  int err = errno;
  ::unlink(tmp.c_str());
  if (rc != 0) {
    if (err == EEXIST)
      return Status(StatusCode::kAlreadyExists, "file '" + path + "' already exists");
    if (err != EPERM && err != ENOTSUP && err != EOPNOTSUPP)
      return PosixError("link", path, err);
    // No hard links here: fall back to O_EXCL creation.
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return PosixError("create", path, errno);
    Status st = WriteWholeFd(fd, data, path);
    if (st.ok() && ::fsync(fd) != 0) st = PosixError("fsync", path, errno);
    ::close(fd);
    SPATE_RETURN_IF_ERROR(st);
  }
  return FsyncDir(ParentPath(path));
}

// ---------------------------------------------------------------------------------------
// MemoryFileSystem

struct MemoryFileSystem::State {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<const std::string>> files;
  std::map<std::string, int64_t> dirs;  // explicit directories (MakeDirs), value unused
  int64_t clock = 0;
  std::map<std::string, int64_t> mtimes;
};

namespace {

std::string Normalize(std::string_view p) {
  std::string s(p);
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

bool IsUnder(const std::string& path, const std::string& dir) {
  if (dir.empty()) return true;
  return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
         path[dir.size()] == '/';
}

bool IsDirLocked(MemoryFileSystem::State& s, const std::string& p) {
  if (p.empty() || p == "/") return true;
  if (s.dirs.count(p)) return true;
  auto it = s.files.lower_bound(p + "/");
  if (it != s.files.end() && IsUnder(it->first, p)) return true;
  // A parent of a directory made by MakeDirs is a directory too.
  auto d = s.dirs.lower_bound(p + "/");
  return d != s.dirs.end() && IsUnder(d->first, p);
}

class MemReadFile final : public RandomAccessFile {
 public:
  MemReadFile(std::string path, std::shared_ptr<const std::string> data)
      : path_(std::move(path)), data_(std::move(data)) {}
  int64_t Size() const override { return static_cast<int64_t>(data_->size()); }
  const std::string& path() const override { return path_; }
  Status ReadAt(int64_t offset, int64_t length, std::string* out) const override {
    if (offset < 0 || length < 0 || offset > Size() || length > Size() - offset) {
      return Status::IOError("read of " + std::to_string(length) + " bytes at offset " +
                             std::to_string(offset) + " is past the end of '" + path_ +
                             "'");
    }
    out->assign(data_->data() + offset, static_cast<size_t>(length));
    return Status::OK();
  }
  Status ReadInto(int64_t offset, int64_t length, uint8_t* out) const override {
    if (offset < 0 || length < 0 || offset > Size() || length > Size() - offset) {
      return Status::IOError("read of " + std::to_string(length) + " bytes at offset " +
                             std::to_string(offset) + " is past the end of '" + path_ +
                             "'");
    }
    if (length > 0) std::memcpy(out, data_->data() + offset, static_cast<size_t>(length));
    return Status::OK();
  }

 private:
  std::string path_;
  std::shared_ptr<const std::string> data_;
};

class MemWritableFile final : public WritableFile {
 public:
  MemWritableFile(std::string path, std::shared_ptr<MemoryFileSystem::State> state)
      : path_(std::move(path)), state_(std::move(state)) {}
  ~MemWritableFile() override {
    if (!closed_) (void)Close();
  }
  const std::string& path() const override { return path_; }
  int64_t Position() const override { return size_; }
  Status Append(std::string_view data) override {
    if (closed_) return Status::IOError("append to closed file '" + path_ + "'");
    buf_.append(data);
    size_ = static_cast<int64_t>(buf_.size());
    return Status::OK();
  }
  Status Sync() override { return Status::OK(); }
  Status Close() override {
    if (closed_) return Status::IOError("close of closed file '" + path_ + "'");
    closed_ = true;
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->files[path_] = std::make_shared<const std::string>(std::move(buf_));
    state_->mtimes[path_] = ++state_->clock;
    return Status::OK();
  }

 private:
  std::string path_;
  std::shared_ptr<MemoryFileSystem::State> state_;
  std::string buf_;
  int64_t size_ = 0;  // the bytes written (also after Close moved buf_ away)
  bool closed_ = false;
};

}  // namespace

MemoryFileSystem::MemoryFileSystem() : state_(std::make_shared<State>()) {}
MemoryFileSystem::~MemoryFileSystem() = default;

Result<std::unique_ptr<RandomAccessFile>> MemoryFileSystem::OpenForRead(
    const std::string& path) {
  std::lock_guard<std::mutex> lock(state_->mu);
  auto it = state_->files.find(Normalize(path));
  if (it == state_->files.end())
    return Status::NotFound("open '" + path + "': No such file or directory");
  return std::unique_ptr<RandomAccessFile>(
      std::make_unique<MemReadFile>(path, it->second));
}

Result<std::unique_ptr<WritableFile>> MemoryFileSystem::Create(const std::string& path) {
  std::string p = Normalize(path);
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (IsDirLocked(*state_, p))
      return Status::IOError("create '" + path + "': is a directory");
    state_->files[p] = std::make_shared<const std::string>();
  }
  return std::unique_ptr<WritableFile>(std::make_unique<MemWritableFile>(p, state_));
}

Result<std::vector<FileInfo>> MemoryFileSystem::List(const std::string& path,
                                                     bool recursive) {
  std::string dir = Normalize(path);
  std::lock_guard<std::mutex> lock(state_->mu);
  if (!IsDirLocked(*state_, dir))
    return Status::NotFound("list directory '" + path + "': No such file or directory");
  std::map<std::string, FileInfo> out;
  auto add = [&](const std::string& p, bool is_file) {
    // Every directory between dir and p, and p itself.
    size_t start = dir.empty() ? 0 : dir.size() + 1;
    size_t pos = start;
    while (true) {
      size_t slash = p.find('/', pos);
      std::string prefix = slash == std::string::npos ? p : p.substr(0, slash);
      bool last = slash == std::string::npos;
      if (!recursive && pos != start) break;
      FileInfo info;
      info.path = prefix;
      info.is_directory = !last || !is_file;
      if (!info.is_directory) {
        info.size = static_cast<int64_t>(state_->files[p]->size());
        info.modification_time_ms = state_->mtimes[p];
      }
      out.emplace(prefix, info);
      if (last) break;
      pos = slash + 1;
    }
  };
  for (const auto& [p, data] : state_->files) {
    if (IsUnder(p, dir)) add(p, true);
  }
  for (const auto& [p, unused] : state_->dirs) {
    if (IsUnder(p, dir)) add(p, false);
  }
  std::vector<FileInfo> v;
  for (auto& [p, info] : out) v.push_back(info);
  return v;
}

Result<FileInfo> MemoryFileSystem::Stat(const std::string& path) {
  std::string p = Normalize(path);
  std::lock_guard<std::mutex> lock(state_->mu);
  FileInfo info;
  info.path = path;
  auto it = state_->files.find(p);
  if (it != state_->files.end()) {
    info.size = static_cast<int64_t>(it->second->size());
    info.modification_time_ms = state_->mtimes[p];
    return info;
  }
  if (IsDirLocked(*state_, p)) {
    info.is_directory = true;
    return info;
  }
  return Status::NotFound("stat '" + path + "': No such file or directory");
}

Result<bool> MemoryFileSystem::Exists(const std::string& path) {
  std::string p = Normalize(path);
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->files.count(p) > 0 || IsDirLocked(*state_, p);
}

Status MemoryFileSystem::MakeDirs(const std::string& path) {
  std::string p = Normalize(path);
  std::lock_guard<std::mutex> lock(state_->mu);
  if (state_->files.count(p))
    return Status::IOError("mkdir '" + path + "': exists and is not a directory");
  state_->dirs[p] = 0;
  return Status::OK();
}

Status MemoryFileSystem::Rename(const std::string& from, const std::string& to) {
  std::string f = Normalize(from), t = Normalize(to);
  std::lock_guard<std::mutex> lock(state_->mu);
  auto it = state_->files.find(f);
  if (it != state_->files.end()) {
    auto data = it->second;
    state_->files.erase(it);
    state_->files[t] = std::move(data);
    state_->mtimes[t] = ++state_->clock;
    return Status::OK();
  }
  if (!IsDirLocked(*state_, f))
    return Status::NotFound("rename '" + from + "': No such file or directory");
  std::map<std::string, std::shared_ptr<const std::string>> moved;
  for (auto i = state_->files.begin(); i != state_->files.end();) {
    if (IsUnder(i->first, f)) {
      moved[t + i->first.substr(f.size())] = i->second;
      i = state_->files.erase(i);
    } else {
      ++i;
    }
  }
  for (auto& [p, d] : moved) state_->files[p] = d;
  std::map<std::string, int64_t> dirs;
  for (auto i = state_->dirs.begin(); i != state_->dirs.end();) {
    if (i->first == f || IsUnder(i->first, f)) {
      dirs[t + i->first.substr(f.size())] = 0;
      i = state_->dirs.erase(i);
    } else {
      ++i;
    }
  }
  state_->dirs.insert(dirs.begin(), dirs.end());
  return Status::OK();
}

Status MemoryFileSystem::Delete(const std::string& path, bool recursive) {
  std::string p = Normalize(path);
  std::lock_guard<std::mutex> lock(state_->mu);
  if (state_->files.erase(p)) return Status::OK();
  if (!IsDirLocked(*state_, p))
    return Status::NotFound("delete '" + path + "': No such file or directory");
  bool has_children = false;
  for (const auto& [f, d] : state_->files) has_children |= IsUnder(f, p);
  for (const auto& [f, d] : state_->dirs) has_children |= IsUnder(f, p);
  if (has_children && !recursive)
    return Status::IOError("delete directory '" + path + "': Directory not empty");
  for (auto i = state_->files.begin(); i != state_->files.end();) {
    i = IsUnder(i->first, p) ? state_->files.erase(i) : std::next(i);
  }
  for (auto i = state_->dirs.begin(); i != state_->dirs.end();) {
    i = (i->first == p || IsUnder(i->first, p)) ? state_->dirs.erase(i) : std::next(i);
  }
  return Status::OK();
}

Status MemoryFileSystem::WriteAtomic(const std::string& path, std::string_view data) {
  std::string p = Normalize(path);
  std::lock_guard<std::mutex> lock(state_->mu);
  if (IsDirLocked(*state_, p))
    return Status::IOError("write '" + path + "': is a directory");
  state_->files[p] = std::make_shared<const std::string>(data);
  state_->mtimes[p] = ++state_->clock;
  return Status::OK();
}

Status MemoryFileSystem::PutIfAbsent(const std::string& path, std::string_view data) {
  std::string p = Normalize(path);
  std::lock_guard<std::mutex> lock(state_->mu);
  if (state_->files.count(p) || IsDirLocked(*state_, p)) {
    return Status(StatusCode::kAlreadyExists, "file '" + path + "' already exists");
  }
  state_->files[p] = std::make_shared<const std::string>(data);
  state_->mtimes[p] = ++state_->clock;
  return Status::OK();
}

std::string JoinPath(std::string_view dir, std::string_view name) {
  if (dir.empty()) return std::string(name);
  std::string s(dir);
  if (s.back() != '/') s += '/';
  s.append(name);
  return s;
}

std::string AbsolutePath(std::string_view path) {
  if (path.empty() || path[0] == '/' || path.find("://") != std::string_view::npos ||
      path.rfind("file:", 0) == 0) {
    return std::string(path);
  }
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(std::filesystem::path(path), ec);
  if (ec) return std::string(path);
  std::string out = abs.lexically_normal().string();
  // "in/" keeps no trailing slash, as the relative form had none to mean a folder.
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string ParentPath(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return "";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

std::string BaseName(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace spate::io

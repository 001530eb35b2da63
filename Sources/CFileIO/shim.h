#ifndef BMV_CFILEIO_SHIM_H
#define BMV_CFILEIO_SHIM_H
/* syncfs(2) is declared only under _GNU_SOURCE, which Swift's Glibc module does not set. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

/* Flushes the whole file system that holds `descriptor`: one journal commit for many files,
   and it reports the write-back errors seen since `descriptor` was opened. */
static inline int bmv_syncfs(int descriptor) {
    return syncfs(descriptor);
}

/* rename(2) that fails with EEXIST instead of replacing `destination`. Called through
   syscall(2) so it does not depend on the glibc version's wrapper. */
static inline int bmv_rename_noreplace(const char *source, const char *destination) {
    return (int)syscall(SYS_renameat2, AT_FDCWD, source, AT_FDCWD, destination, RENAME_NOREPLACE);
}

/* An anonymous file in memory (memfd_create(2)), never on a disk. */
static inline int bmv_memory_file(const char *name) {
    return memfd_create(name, MFD_CLOEXEC);
}

/* Clears O_NONBLOCK (fcntl(2) is variadic, which Swift cannot call): a file opened
   without waiting reads like any other afterwards. */
static inline int bmv_set_blocking(int descriptor) {
    int flags = fcntl(descriptor, F_GETFL);
    return flags == -1 ? -1 : fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK);
}

/* d_name is a fixed-size char array, which Swift imports as a tuple. */
static inline const char *bmv_dirent_name(const struct dirent *entry) {
    return entry->d_name;
}
#endif

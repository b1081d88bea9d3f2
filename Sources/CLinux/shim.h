#ifndef FLEET_CLINUX_SHIM_H
#define FLEET_CLINUX_SHIM_H
/* Linux-only glibc declarations that Swift's Glibc module leaves out (it is built without _GNU_SOURCE and
 * has no sys/eventfd.h). Nothing here links beyond libc. */
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/xattr.h>
#include <unistd.h>

/* EFD_* are enum constants with macro aliases in glibc; re-declared as plain ints for Swift. */
static const int FLEET_EFD_CLOEXEC = EFD_CLOEXEC;
static const int FLEET_EFD_NONBLOCK = EFD_NONBLOCK;

#ifndef __USE_GNU
/* pipe2 (glibc 2.9, Linux 2.6.27) sets O_CLOEXEC atomically with the pipe's creation. */
extern int pipe2(int __pipedes[2], int __flags);
/* accept4 (glibc 2.10, Linux 2.6.28) gives the accepted socket O_NONBLOCK and O_CLOEXEC atomically. */
extern int accept4(int __fd, struct sockaddr *__addr, socklen_t *__addr_len, int __flags);
#endif

#endif

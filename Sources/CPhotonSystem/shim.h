#ifndef PHOTON_SYSTEM_SHIM_H
#define PHOTON_SYSTEM_SHIM_H
// Linux interfaces that Glibc's Swift module does not expose: epoll, eventfd, TCP options,
// peer credentials.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/file.h>

static inline int photon_epoll_fd(const struct epoll_event *ev) { return ev->data.fd; }
static inline struct epoll_event photon_epoll_event(unsigned int events, int fd) {
    struct epoll_event ev;
    ev.events = events;
    ev.data.u64 = 0;
    ev.data.fd = fd;
    return ev;
}

/// The process at the other end of a Unix socket, as the kernel recorded it at connect
/// time (same layout as `struct ucred`, which needs _GNU_SOURCE).
struct photon_peer_credentials {
    int pid;
    unsigned int uid;
    unsigned int gid;
};
static inline int photon_get_peer_credentials(int fd, struct photon_peer_credentials *out) {
    socklen_t length = sizeof(*out);
    return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, out, &length);
}
/// glibc's accept4(2), declared here rather than through _GNU_SOURCE, which would change
/// `fd_set` for this module alone and clash with the other system modules.
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

/// accept(2) with the new descriptor non-blocking and close-on-exec from birth.
static inline int photon_accept_nonblocking(int fd, struct sockaddr *address, socklen_t *length) {
    return accept4(fd, address, length, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

#endif

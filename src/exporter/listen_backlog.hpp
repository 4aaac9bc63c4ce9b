#pragma once
// cpp-httplib (Debian's compiled library) listens with a backlog of 5 connections: more
// simultaneous connects than that (64 scrapers, or a burst of reconnects) overflow the
// accept queue, the kernel drops their SYNs, and each retries only after 1 s (measured
// with bench/serve_load.sh: p99 about 1 s, TcpExtListenOverflows climbing). The library
// gives no access to its socket, so after it binds we find the listening socket on that
// port and listen() again with a bigger backlog: Linux updates the backlog of a socket
// that already listens.

namespace gpuwatch::exporter {

// Sets the backlog of this process's listening TCP sockets bound to PORT to BACKLOG;
// returns how many sockets it changed (0: none found, nothing changed).
int widen_listen_backlog(int port, int backlog);

}  // namespace gpuwatch::exporter

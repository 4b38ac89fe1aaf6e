// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * holder.c - rdsu_io_strerror: why an endpoint's port is taken, when the
 * kernel's own RDS is what holds it. The kernel's rds_tcp listens on TCP
 * port 16385 of the wildcard address in every network namespace
 * (net/rds/tcp_listen.c rds_tcp_listen_init) and rds_rdma on rdma_cm
 * ports 18634 and 16385 of the wildcard address (net/rds/rdma_transport.c
 * rds_rdma_listen_init), so while either module is loaded no endpoint of
 * ours can listen on any address with that transport
 * (docs/kernel-behaviour.md K4.1, K6.1).
 */
#include <rds/rdsu_io.h>

#include <errno.h>
#include <unistd.h>

/* Is the kernel module of |path| (/sys/module/NAME) loaded? */
static bool module_loaded(const char *path)
{
	return access(path, F_OK) == 0;
}

const char *rdsu_io_strerror(int err, unsigned transports)
{
	bool ib = transports & RDSU_IO_IB;
	bool tcp = !transports || (transports & RDSU_IO_TCP);
	bool rdma_mod = ib && module_loaded("/sys/module/rds_rdma");
	bool tcp_mod = tcp && module_loaded("/sys/module/rds_tcp");

	if (err != -EADDRINUSE)
		return rdsu_strerror(err);
	if (rdma_mod && tcp_mod)
		return "the kernel's RDS holds the RDS ports of every address (rds_tcp TCP port "
		       "16385, rds_rdma rdma_cm port 18634): unload them (rmmod rds_tcp rds_rdma) "
		       "or use the kernel's RDS";
	if (rdma_mod)
		return "the kernel's rds_rdma holds rdma_cm port 18634 (16385 for IPv6) of every "
		       "address, the RDMA devices' too: unload it (rmmod rds_rdma) or use the "
		       "kernel's RDS";
	if (tcp_mod)
		return "the kernel's rds_tcp holds TCP port 16385 of every address: unload it "
		       "(rmmod rds_tcp) or use the kernel's RDS";
	return ib ? "the RDS port of this address (TCP 16385 or rdma_cm 18634) is in use, "
		    "perhaps by another librds program on it"
		  : "TCP port 16385 of this address is in use, perhaps by another librds "
		    "program on it";
}

#ifndef FLEET_CSYSTEMD_SHIM_H
#define FLEET_CSYSTEMD_SHIM_H
#include <systemd/sd-journal.h>
#include <systemd/sd-daemon.h>
#include <sys/uio.h>
#endif

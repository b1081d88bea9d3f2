#ifndef FLEET_CMOSQUITTO_SHIM_H
#define FLEET_CMOSQUITTO_SHIM_H
/* Debian 12's libmosquitto 2.0.11 (libmosquitto-dev). Nothing in mosquitto.h that fleetd calls is variadic,
   so the header is used as it is; only FleetBroker imports this module. */
#include <mosquitto.h>
#include <mqtt_protocol.h>
#endif

/**
 * The sidecar's memory of where needles are: one byte-bounded cache for every agent connection, keyed by the volume
 * epoch each entry belongs to. The connection package fills it from the agents' lookups and index changes.
 */
package org.seaweedfs.rdma.sidecar.locations;

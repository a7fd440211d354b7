package org.seaweedfs.rdma.config;

import java.util.List;

/**
 * UCX settings.
 *
 * @param tls           transports ({@code UCX_TLS}); empty lets UCX choose
 * @param netDevices    devices ({@code UCX_NET_DEVICES}); empty lets UCX choose
 * @param errorHandling "peer" (endpoints report peer failure; needed to detect dead agents) or "none"
 * @param workers       UCX workers, each with its own progress thread
 */
public record UcxConfig(List<String> tls, List<String> netDevices, String errorHandling, int workers) {

    public UcxConfig {
        tls = List.copyOf(tls);
        netDevices = List.copyOf(netDevices);
    }
}

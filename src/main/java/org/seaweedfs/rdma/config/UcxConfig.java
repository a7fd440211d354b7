package org.seaweedfs.rdma.config;

import java.util.List;

/**
 * UCX settings.
 *
 * @param tls           transports ({@code UCX_TLS}); empty lets UCX choose
 * @param netDevices    devices ({@code UCX_NET_DEVICES}); empty lets UCX choose
 * @param errorHandling "peer" (endpoints report peer failure; needed to detect dead agents) or "none"
 * @param onDemandPaging "auto" (on when {@code tls} could include an RDMA transport: empty, all, ^..., rc*, ud*,
 *                      dc*, ib), "true" or "false": register memory with on-demand paging
 *                      ({@code UcpMemMapParams.nonBlocking()}, see {@code UcxSettings})
 */
public record UcxConfig(List<String> tls, List<String> netDevices, String errorHandling,
                        String onDemandPaging) {

    public UcxConfig {
        tls = List.copyOf(tls);
        netDevices = List.copyOf(netDevices);
    }
}

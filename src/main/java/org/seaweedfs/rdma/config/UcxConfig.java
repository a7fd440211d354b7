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
 * @param maxRemoteKeys remote keys one channel keeps unpacked at once
 * @param eventLoopLanes gets issued on an event loop run on a UCX worker that event loop owns (no thread hand-off);
 *                      false sends every get through the worker's owner thread
 * @param progress      how the UCX owner thread waits: "auto" (chosen at start-up, see {@code ProgressPlan}), "wait"
 *                      (sleeps at once) or "spin" (polls 100 µs after its last event)
 */
public record UcxConfig(List<String> tls, List<String> netDevices, String errorHandling,
                        String onDemandPaging, int maxRemoteKeys, boolean eventLoopLanes, String progress) {

    public UcxConfig {
        tls = List.copyOf(tls);
        netDevices = List.copyOf(netDevices);
    }
}

package org.seaweedfs.rdma.config;

/** @param enabled Vert.x metrics and the {@code /metrics} endpoint */
public record MetricsConfig(boolean enabled) {
}

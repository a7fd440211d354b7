package org.seaweedfs.rdma.volume;

/** Where an index replay stopped ({@code position}, in bytes) and how many whole entries it applied. */
public record IndexProgress(long position, long entries) {
}

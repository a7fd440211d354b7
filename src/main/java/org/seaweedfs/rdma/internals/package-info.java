/**
 * The one door to framework internals: every use of Vert.x's {@code impl} / {@code internal} classes and Netty's
 * {@code internal} classes lives here, behind small static methods, so an upgrade of either framework has one place
 * to check. ArchitectureTest fails on such a use anywhere else. Imports nothing of this project.
 */
package org.seaweedfs.rdma.internals;

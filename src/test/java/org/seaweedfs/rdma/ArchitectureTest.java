package org.seaweedfs.rdma;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The package structure of the main code: no package imports a package that imports it back, the protocol, volume
 * and UCX packages stay leaves, and only the command line reaches into the composition root ({@link SeaweedRdma},
 * {@link RoleSettings}, {@link RoleMetricsBinder}), which may import every package.
 */
class ArchitectureTest {

    private static final String ROOT = "org.seaweedfs.rdma";

    private static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages(ROOT);
    }

    /** One slice per top-level package, its sub-packages included (sidecar.read is part of sidecar). */
    @Test
    void topLevelPackagesAreFreeOfCycles() {
        slices().matching(ROOT + ".(*)..").should().beFreeOfCycles().check(main);
    }

    /** One slice per sub-package of the sidecar (and its own sub-packages); nothing to check while it is flat. */
    @Test
    void sidecarSubPackagesAreFreeOfCycles() {
        slices().matching(ROOT + ".sidecar.(*)..").should().beFreeOfCycles().allowEmptyShould(true).check(main);
    }

    /** protocol and volume know the formats, ucx the transport: none of them knows another package of ours. */
    @ParameterizedTest
    @ValueSource(strings = {"protocol", "volume", "ucx"})
    void leavesImportNoOtherProjectPackage(String leaf) {
        noClasses().that().resideInAPackage(ROOT + "." + leaf + "..")
                .should().dependOnClassesThat(resideInAPackage(ROOT + "..").and(resideOutsideOfPackage(ROOT + "." + leaf + "..")))
                .because(leaf + " is a leaf")
                .check(main);
    }

    @Test
    void onlyTheCommandLineUsesTheCompositionRoot() {
        noClasses().that().resideInAPackage(ROOT + ".(*)..").and().resideOutsideOfPackage(ROOT + ".cli..")
                .should().dependOnClassesThat().resideInAPackage(ROOT)
                .because("the composition root imports every package; one of them importing it back is a cycle")
                .check(main);
    }

    /**
     * JUCX 1.15 implements these with ucp_memh_pack / ucp_memh_buffer_release, which Debian 12's UCX 1.13.1 lacks: the
     * JVM dies resolving the symbol on the first call (docs/protocol.md, "UCX versions"). Nothing else JUCX 1.15 offers needs more.
     */
    @Test
    void noCodeReachesJucxCallsMissingFromDebiansUcx() {
        noClasses().should().callMethod("org.openucx.jucx.ucp.UcpMemory", "getExportedMkeyBuffer")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("org.openucx.jucx.ucp.UcpMemPackParams")
                .because("UCX 1.13.1 lacks ucp_memh_pack and ucp_memh_buffer_release")
                .check(main);
    }
}

package org.seaweedfs.rdma;

import static com.tngtech.archunit.core.domain.JavaCall.Predicates.target;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.type;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameMatching;
import static com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The package structure of the main code: no package imports a package that imports it back, the protocol, volume
 * and UCX packages stay leaves (they may use the internals door and the polling rule), only the command line reaches
 * into the composition
 * root ({@link SeaweedRdma}, {@link RoleSettings}, {@link RoleMetricsBinder}), which may import every package, only
 * the internals package touches framework internals or the JDK's (sun.misc, setAccessible), and no public signature
 * of ours shows a Netty type.
 */
class ArchitectureTest {

    private static final String ROOT = "org.seaweedfs.rdma";

    private static final String INTERNALS = ROOT + ".internals";
    private static final String POLLING = ROOT + ".polling";

    private static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(ROOT);
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
    @ValueSource(strings = {"protocol", "volume", "ucx", "internals", "polling"})
    void leavesImportNoOtherProjectPackage(String leaf) {
        noClasses().that().resideInAPackage(ROOT + "." + leaf + "..")
                .should().dependOnClassesThat(resideInAPackage(ROOT + "..")
                        .and(resideOutsideOfPackage(ROOT + "." + leaf + ".."))
                        .and(resideOutsideOfPackage(INTERNALS + ".."))
                        .and(resideOutsideOfPackage(POLLING + "..")))
                .because(leaf + " is a leaf")
                .check(main);
    }

    /** Vert.x's impl/internal and Netty's internal classes change without notice: one package may use them. */
    @Test
    void onlyTheInternalsPackageUsesFrameworkInternals() {
        noClasses().that().resideOutsideOfPackage(INTERNALS + "..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "io.vertx.core.impl..", "io.vertx.core.internal..", "io.netty.util.internal..")
                .because("framework internals go through " + INTERNALS)
                .check(main);
    }

    /**
     * The JDK's unsupported classes ({@code sun.misc.Unsafe} and the like) and reflection past access checks are the
     * same kind of door: only the internals package opens it. Reflection by name ({@code Class.forName}, declared
     * members) counts too, since it reaches such a class without a compile-time dependency.
     */
    @Test
    void onlyTheInternalsPackageReachesJdkInternalsOrBypassesAccessChecks() {
        noClasses().that().resideOutsideOfPackage(INTERNALS + "..")
                .should().dependOnClassesThat().resideInAnyPackage("sun..", "jdk.internal..")
                .orShould().callMethodWhere(target(name("setAccessible")))
                .orShould().callMethodWhere(target(name("forName")).and(target(owner(type(Class.class)))))
                .orShould().callMethodWhere(target(nameMatching("getDeclared(Field|Method|Constructor)s?")))
                .because("JDK internals and reflection past access checks go through " + INTERNALS)
                .check(main);
    }

    /** Netty is how Vert.x works, not part of our API: public types of ours neither take nor return its types. */
    @Test
    void noPublicSignatureShowsNettyTypes() {
        classes().that().arePublic().and().resideOutsideOfPackage(INTERNALS + "..")
                .should(exposeNoNettyType())
                .check(main);
    }

    private static ArchCondition<JavaClass> exposeNoNettyType() {
        return new ArchCondition<>("expose no Netty type in a public method, constructor or field") {
            @Override
            public void check(JavaClass type, ConditionEvents events) {
                for (JavaCodeUnit unit : type.getCodeUnits()) {
                    if (unit.getModifiers().contains(JavaModifier.PUBLIC)) {
                        boolean netty = isNetty(unit.getRawReturnType())
                                || unit.getRawParameterTypes().stream().anyMatch(ArchitectureTest::isNetty);
                        report(events, type, unit.getFullName(), netty);
                    }
                }
                for (JavaField field : type.getFields()) {
                    if (field.getModifiers().contains(JavaModifier.PUBLIC)) {
                        report(events, type, field.getFullName(), isNetty(field.getRawType()));
                    }
                }
            }
        };
    }

    private static void report(ConditionEvents events, JavaClass type, String member, boolean netty) {
        if (netty) {
            events.add(SimpleConditionEvent.violated(type, member + " shows a Netty type"));
        }
    }

    private static boolean isNetty(JavaClass type) {
        return type.getPackageName().startsWith("io.netty");
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
     * JVM dies resolving the symbol on the first call (docs/protocol.md, "UCX versions"). Nothing else JUCX 1.15 offers
     * needs more.
     */
    @Test
    void noCodeReachesJucxCallsMissingFromDebiansUcx() {
        noClasses().should().callMethod("org.openucx.jucx.ucp.UcpMemory", "getExportedMkeyBuffer")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("org.openucx.jucx.ucp.UcpMemPackParams")
                .because("UCX 1.13.1 lacks ucp_memh_pack and ucp_memh_buffer_release")
                .check(main);
    }
}

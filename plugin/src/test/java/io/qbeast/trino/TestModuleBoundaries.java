package io.qbeast.trino;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import java.util.List;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The module rules of {@code DESIGN.md}, on the compiled main classes of the three modules:
 * {@code index} (package {@code io.qbeast.index}) is pure Java and knows neither Trino nor
 * Iceberg; {@code metadata} ({@code io.qbeast.iceberg}) puts the index on Iceberg and knows no
 * Trino SPI; neither knows the plugin. The plugin's packages import each other without cycles,
 * and its root package ({@code io.qbeast.trino}: the plugin, the connector and its Guice module)
 * sits above them all: no subpackage imports it.
 */
class TestModuleBoundaries
{
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.qbeast");

    @Test
    void testEveryModuleIsImported()
    {
        // a rule over no classes holds vacuously: make sure each module is really there
        assertThat(MAIN.that(describe("in index", javaClass -> javaClass.getPackageName().startsWith("io.qbeast.index")))).hasSizeGreaterThan(20);
        assertThat(MAIN.that(describe("in metadata", javaClass -> javaClass.getPackageName().startsWith("io.qbeast.iceberg")))).hasSizeGreaterThan(5);
        assertThat(MAIN.that(describe("in plugin", javaClass -> javaClass.getPackageName().startsWith("io.qbeast.trino")))).hasSizeGreaterThan(40);
    }

    @Test
    void testIndexIsPureJava()
    {
        classes().that().resideInAPackage("io.qbeast.index..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("io.qbeast.index..", "java..")
                .check(MAIN);
    }

    @Test
    void testMetadataKnowsNoTrinoSpi()
    {
        noClasses().that().resideInAPackage("io.qbeast.iceberg..")
                .should().dependOnClassesThat().resideInAnyPackage("io.trino.spi..", "io.qbeast.trino..")
                .check(MAIN);
    }

    @Test
    void testPluginSubpackagesHaveNoCycles()
    {
        slices().matching("io.qbeast.trino.(*)..").should().beFreeOfCycles().check(MAIN);
    }

    /**
     * The plugin's packages in the order of docs/code-map.md: each uses only the packages before
     * it, so the map a newcomer reads stays true.
     */
    @Test
    void testPackagesAreLayered()
    {
        List<String> layers = List.of("error", "handle", "encoding", "config", "security", "catalog", "parquet", "routing", "write", "read", "optimize", "maintenance", "system", "metadata", "procedure");
        assertThat(MAIN.stream().map(JavaClass::getPackageName).filter(name -> name.startsWith("io.qbeast.trino.")).map(name -> name.split("\\.")[3]).distinct())
                .as("every plugin package has its place in the layers")
                .containsExactlyInAnyOrderElementsOf(layers);
        for (int i = 0; i < layers.size(); i++) {
            String[] later = layers.subList(i + 1, layers.size()).stream().map(layer -> "io.qbeast.trino." + layer + "..").toArray(String[]::new);
            if (later.length > 0) {
                noClasses().that().resideInAPackage("io.qbeast.trino." + layers.get(i) + "..")
                        .should().dependOnClassesThat().resideInAnyPackage(later)
                        .check(MAIN);
            }
        }
    }

    @Test
    void testRootPackageOnlyWiresTheConnector()
    {
        noClasses().that().resideInAPackage("io.qbeast.trino.*..")
                .should().dependOnClassesThat().resideInAPackage("io.qbeast.trino")
                .check(MAIN);
        assertThat(MAIN.that(describe("in the root package", javaClass -> javaClass.getPackageName().equals("io.qbeast.trino"))))
                .extracting(javaClass -> javaClass.getSimpleName())
                .containsExactlyInAnyOrder("QbeastPlugin", "QbeastConnectorFactory", "QbeastModule", "QbeastConnector");
    }
}

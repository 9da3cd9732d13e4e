package io.qbeast.trino;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The module rules of {@code DESIGN.md}, on the compiled main classes of the three modules:
 * {@code index} (package {@code io.qbeast.index}) is pure Java and knows neither Trino nor
 * Iceberg; {@code metadata} ({@code io.qbeast.iceberg}) puts the index on Iceberg and knows no
 * Trino SPI; neither knows the plugin. The plugin's subpackages import each other without cycles
 * (today {@code parquet} and {@code write}; the root package, which still imports both and is
 * imported by {@code parquet}, is not a slice of this rule until it is split into packages).
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
}

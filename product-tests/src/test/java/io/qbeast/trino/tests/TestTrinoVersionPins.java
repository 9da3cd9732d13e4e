package io.qbeast.trino.tests;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * One property sets the Trino version: the root POM's {@code dep.trino.version} (and
 * {@code dep.trino-cli.version} for the CLI, the last one published). This test reads every text
 * file of the repository and fails on a Trino version written anywhere else in a form a build or a
 * script acts on: a Maven coordinate ({@code io.trino:artifact:NNN}), an artifact or directory name
 * ({@code trino-server-NNN}, {@code trino-cli-NNN-executable.jar}), a literal
 * {@code <version>} of an {@code io.trino} dependency, a {@code dep.trino*} property, a
 * {@code trino.version=} setting. Prose about what a release did ("not published after NNN", the
 * upgrade fixture "written by Trino NNN") is not a pin and is not checked; dated benchmark results,
 * the upgrade fixture's files and build output are skipped.
 */
class TestTrinoVersionPins
{
    private static final List<Pattern> PINS = List.of(
            Pattern.compile("io\\.trino:(trino-[a-z-]+):(\\d{3})\\b"),
            Pattern.compile("\\b(trino-[a-z]+(?:-[a-z]+)*)-(\\d{3})(?=[./-]|\\b)"),
            Pattern.compile("<artifactId>(trino-[a-z-]+)</artifactId>\\s*<version>(\\d{3})</version>"),
            Pattern.compile("<(dep\\.trino[a-z.-]*)>(\\d{3})</"),
            Pattern.compile("\\b(trino[._-]version)\\s*[=:]\\s*\"?(\\d{3})\\b"));

    private static final Set<String> SKIPPED_DIRECTORIES = Set.of(".git", "target", ".trino", ".idea", "node_modules");
    private static final List<String> SKIPPED_PATHS = List.of("benchmarks/results/", "plugin/src/test/resources/upgrade-fixture/");

    @Test
    void testEveryTrinoVersionPinIsTheRootPomProperty()
            throws IOException
    {
        Path root = ProductTestEnvironment.repoRoot();
        String version = ProductTestEnvironment.trinoVersion();
        String cliVersion = ProductTestEnvironment.trinoCliVersion();
        assertThat(version).matches("\\d{3}");

        List<String> stray = new ArrayList<>();
        int pinsSeen = 0;
        for (Map.Entry<Path, String> file : textFiles(root).entrySet()) {
            String path = root.relativize(file.getKey()).toString().replace('\\', '/');
            String text = file.getValue();
            for (Pattern pin : PINS) {
                Matcher matcher = pin.matcher(text);
                while (matcher.find()) {
                    pinsSeen++;
                    String name = matcher.group(1);
                    String expected = name.contains("cli") ? cliVersion : version;
                    if (!matcher.group(2).equals(expected)) {
                        int line = (int) text.substring(0, matcher.start()).chars().filter(c -> c == '\n').count() + 1;
                        stray.add("%s:%d: %s (expected %s)".formatted(path, line, matcher.group(), expected));
                    }
                }
            }
        }
        assertThat(stray).as("Trino versions pinned outside the root pom's dep.trino.version / dep.trino-cli.version").isEmpty();
        // the patterns do see pins: the root pom's own properties at least
        assertThat(pinsSeen).isGreaterThanOrEqualTo(2);
    }

    @Test
    void testThePatternsCatchAStrayPin()
    {
        // a guard against patterns that match nothing: each form of pin, with a version that is not ours
        String other = "999";
        List<String> samples = List.of(
                "io.trino:trino-main:" + other,
                "trino-server-" + other + ".tar.gz",
                "<artifactId>trino-spi</artifactId>\n    <version>" + other + "</version>",
                "<dep.trino.version>" + other + "</dep.trino.version>",
                "trino.version=" + other);
        for (String sample : samples) {
            assertThat(PINS.stream().anyMatch(pin -> {
                Matcher matcher = pin.matcher(sample);
                return matcher.find() && matcher.group(2).equals(other);
            })).as(sample).isTrue();
        }
    }

    /** Every text file of the repository outside the skipped places, with its content (read once). */
    private static Map<Path, String> textFiles(Path root)
            throws IOException
    {
        Map<Path, String> files = new LinkedHashMap<>();
        try (Stream<Path> walk = Files.walk(root)) {
            walk.filter(Files::isRegularFile)
                    .filter(file -> {
                        Path relative = root.relativize(file);
                        for (Path part : relative) {
                            if (SKIPPED_DIRECTORIES.contains(part.toString())) {
                                return false;
                            }
                        }
                        String path = relative.toString().replace('\\', '/');
                        return SKIPPED_PATHS.stream().noneMatch(path::startsWith);
                    })
                    .forEach(file -> text(file).ifPresent(text -> files.put(file, text)));
        }
        return files;
    }

    /** The file's content if it is UTF-8 text (no NUL byte, at most 2 MB), else empty. */
    private static Optional<String> text(Path file)
    {
        try {
            if (Files.size(file) > 2_000_000) {
                return Optional.empty();
            }
            byte[] bytes = Files.readAllBytes(file);
            for (byte b : bytes) {
                if (b == 0) {
                    return Optional.empty();
                }
            }
            return Optional.of(UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString());
        }
        catch (CharacterCodingException e) {
            return Optional.empty();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

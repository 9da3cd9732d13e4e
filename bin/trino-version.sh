# Sourced by the project's scripts (bin/trino-qbeast, benchmarks/run), with ROOT set to the repository:
# the Trino versions from the one place they are set, the root pom.xml, and the server distribution
# the trino-dist modules assemble from Maven artifacts for that version.
#   TRINO_VERSION  dep.trino.version       TRINO_DIST   trino-dist/target/trino-server-$TRINO_VERSION
#   CLI_VERSION    dep.trino-cli.version (trino-cli is not published after 476; the last one is used)
# pom_property NAME: the literal value of <NAME> in the root pom.xml
pom_property() {
    local value
    value="$(sed -n "s:^[[:space:]]*<$1>[[:space:]]*\\([^<[:space:]]*\\)[[:space:]]*</$1>.*:\\1:p" "$ROOT/pom.xml" | head -n 1)"
    if ! [[ "$value" =~ ^[0-9A-Za-z._-]+$ ]]; then
        echo "qbeast: cannot read <$1> from $ROOT/pom.xml" >&2
        return 1
    fi
    echo "$value"
}
TRINO_VERSION="$(pom_property dep.trino.version)" || exit 1
CLI_VERSION="$(pom_property dep.trino-cli.version)" || exit 1
TRINO_DIST="$ROOT/trino-dist/target/trino-server-$TRINO_VERSION"

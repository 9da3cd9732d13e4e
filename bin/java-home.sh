# Sourced by the project's scripts: points JAVA_HOME at a JDK >= 25 (Trino 483 needs it).
java_major() { "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'; }
if [ -z "${JAVA_HOME:-}" ] || [ ! -x "$JAVA_HOME/bin/java" ] || [ "$(java_major "$JAVA_HOME")" -lt 25 ] 2>/dev/null; then
    JAVA_HOME=""
    for candidate in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*25* /usr/lib/jvm/*; do
        if [ -x "$candidate/bin/java" ] && [ "$(java_major "$candidate")" -ge 25 ] 2>/dev/null; then
            JAVA_HOME="$candidate"
            break
        fi
    done
    if [ -z "$JAVA_HOME" ]; then
        echo "qbeast: a JDK 25 or newer is required (Trino 483); set JAVA_HOME" >&2
        exit 1
    fi
fi
export JAVA_HOME
export PATH="$JAVA_HOME/bin:$PATH"

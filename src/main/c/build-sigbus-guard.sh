#!/bin/sh
# Builds the agent's SIGBUS guard (sigbus_guard.c) into <classes>/native/libsigbusguard.so; called by Maven's
# compile phase (pom.xml, execution sigbus-guard). Fails the build, saying what to install, rather than leave a
# jar without the guard; -Dsigbusguard.skip=true is the one way to build without it.
# Usage: build-sigbus-guard.sh <classes dir> <java.home> <source .c>
classes=$1 java_home=$2 source=$3
hint="install a C compiler and libc headers (Debian: apt-get install -y gcc libc6-dev), or build without the guard"
hint="$hint with -Dsigbusguard.skip=true (the agent then logs that a .dat truncated while mapped can crash it)"
if ! command -v gcc >/dev/null 2>&1; then
    echo "ERROR: gcc not found on PATH: the agent's SIGBUS guard cannot be built; $hint" >&2
    exit 1
fi
mkdir -p "$classes/native" || exit 1
if ! gcc -O2 -Wall -shared -fPIC -I"$java_home/include" -I"$java_home/include/linux" \
        -o "$classes/native/libsigbusguard.so" "$source"; then
    echo "ERROR: gcc failed to compile the agent's SIGBUS guard ($source); $hint" >&2
    exit 1
fi

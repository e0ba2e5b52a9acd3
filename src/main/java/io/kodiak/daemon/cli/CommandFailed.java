package io.kodiak.daemon.cli;

/** A command that cannot go on: its message for stderr and the exit code (bin/proxy.sh's usage lists them). */
final class CommandFailed extends Exception {
    final int exitCode;

    CommandFailed(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }
}

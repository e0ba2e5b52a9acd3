package io.kodiak.daemon.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The daemon's JVM command line, the same for start (in the background) and run (in the foreground). */
final class DaemonCommand {
    private DaemonCommand() {
    }

    /** {@code javaOpts}: JAVA_OPTS's words, placed after the defaults so that they win. */
    static List<String> of(Instance instance, Installation installation, Path conf, List<String> javaOpts,
                           String classpath) {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(java.toString(), instance.marker,
                "-Dkodiak.pid-file=" + instance.pidFile, "-DPROXY_LOG_DIR=" + instance.logs,
                "-Dkodiak.settings-file=" + instance.settingsFile,
                "-Dlogback.configurationFile=" + installation.home.resolve("conf/logback.xml"),
                "-Xms256m", "-Xmx1g", "-XX:+ExitOnOutOfMemoryError", "-XX:ErrorFile=" + instance.logs + "/hs_err_pid%p.log",
                "-Dfile.encoding=UTF-8", "-Djdk.tls.rejectClientInitiatedRenegotiation=true"));
        // ParallelGC, measured against G1 with bin/bench.sh throughput (docs/throughput.md): a
        // proxy's thousands of long-lived connections point at short-lived exchanges, and G1 pays for
        // each such pointer in its write barrier and refinement threads (37 % of Kodiak's CPU at 8,000
        // connections). The JVM refuses two collectors, so this is the default only when JAVA_OPTS picks none.
        if (javaOpts.stream().noneMatch(word -> word.matches("-XX:\\+Use[A-Za-z0-9]*GC"))) {
            command.add("-XX:+UseParallelGC");
        }
        // -Xlog cannot take a file name containing its own separators.
        if (!instance.logs.toString().matches(".*[:,= ].*")) {
            command.add("-Xlog:gc*:file=" + instance.logs + "/gc.log:time,uptime,level,tags:filecount=5,filesize=10m");
        }
        command.addAll(javaOpts);
        command.addAll(List.of("-cp", classpath, "io.kodiak.daemon.Main", "-c", conf.toString()));
        return command;
    }

    /** JAVA_OPTS as words: split on whitespace, nothing expanded (as the shell's read -a did). */
    static List<String> words(String javaOpts) {
        if (javaOpts == null || javaOpts.isBlank()) {
            return List.of();
        }
        return Arrays.asList(javaOpts.strip().split("\\s+"));
    }
}

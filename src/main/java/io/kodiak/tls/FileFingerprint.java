package io.kodiak.tls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Size and modification time of files, so that any rewrite of one is seen without reading it. */
final class FileFingerprint {
    private FileFingerprint() {
    }

    static String of(List<Path> files) {
        StringBuilder print = new StringBuilder();
        for (Path file : files) {
            try {
                print.append(Files.size(file)).append('@').append(Files.getLastModifiedTime(file).toMillis()).append(';');
            } catch (IOException e) {
                print.append("missing;");
            }
        }
        return print.toString();
    }
}

package io.kodiak.admin;

/** Reads one sample from a Prometheus text exposition, by its exact series name and labels. */
final class PrometheusText {
    private PrometheusText() {
    }

    /** The value of {@code series} (e.g. {@code kodiak_requests_total{route="/",status_class="2xx"}}). */
    static double value(String exposition, String series) {
        for (String line : exposition.split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        throw new AssertionError("no sample " + series + " in:\n" + exposition);
    }
}

package io.kodiak.discovery;

import java.util.List;

/** A good answer: its addresses (sorted, never empty) and the shortest TTL of the records it came from, in seconds. */
public record Answer(List<Endpoint> endpoints, long ttlSeconds) {
    public Answer {
        endpoints = endpoints.stream().distinct().sorted().toList();
    }
}

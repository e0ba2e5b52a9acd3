package io.kodiak.h2;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link StreamMap} against a HashMap over random puts, gets and removes of stream-like ids. */
class StreamMapTest {

    @Test
    void behavesAsAMapUnderRandomOperations() {
        Random random = new Random(42);
        StreamMap<String> map = new StreamMap<>();
        Map<Integer, String> expected = new HashMap<>();
        int next = 1;
        for (int step = 0; step < 200_000; step++) {
            int op = random.nextInt(10);
            if (op < 4) {
                map.put(next, "v" + next);
                expected.put(next, "v" + next);
                next += 2;
            } else if (op < 7 && !expected.isEmpty()) {
                int id = 1 + 2 * random.nextInt(next / 2 + 1);
                assertEquals(expected.remove(id), map.remove(id), "remove " + id);
            } else {
                int id = 1 + 2 * random.nextInt(next / 2 + 1);
                assertEquals(expected.get(id), map.get(id), "get " + id);
            }
            assertEquals(expected.size(), map.size());
        }
        for (Map.Entry<Integer, String> entry : expected.entrySet()) {
            assertEquals(entry.getValue(), map.get(entry.getKey()));
        }
        assertEquals(expected.size(), map.values().size());
    }
}

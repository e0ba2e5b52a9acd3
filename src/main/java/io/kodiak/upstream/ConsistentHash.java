package io.kodiak.upstream;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Consistent hashing on a ring of {@link #POINTS_PER_WEIGHT} points per unit of weight for each
 * server (ketama's layout): a key goes to the first point at or after its hash whose server is a
 * candidate, so adding or removing a server moves only the keys of the arcs it gains or loses,
 * about 1/N of them, and a server that is down sends its keys to the next servers on the ring
 * rather than reshuffling every key. Requests without a key go round-robin.
 */
final class ConsistentHash implements Balancer {
    static final int POINTS_PER_WEIGHT = 160;

    private final long[] points;
    private final UpstreamServer[] owners;
    private final Balancer keyless = new SmoothWeightedRoundRobin();

    ConsistentHash(UpstreamServer[] servers) {
        int total = 0;
        for (UpstreamServer server : servers) {
            total += server.weight() * POINTS_PER_WEIGHT;
        }
        // Each point packed into one long: its ring position in the high 56 bits, the server's
        // index (a group has at most 64) in the low 8, with the sign bit flipped so that a signed
        // sort orders positions as unsigned numbers; no boxing, even at 64 servers of weight 1000.
        long[] packed = new long[total];
        int n = 0;
        for (int s = 0; s < servers.length; s++) {
            for (int i = 0; i < servers[s].weight() * POINTS_PER_WEIGHT; i++) {
                packed[n++] = ((hash(servers[s].authority() + "#" + i) & ~0xFFL) | s) ^ Long.MIN_VALUE;
            }
        }
        Arrays.sort(packed);
        points = new long[total];
        owners = new UpstreamServer[total];
        for (int i = 0; i < total; i++) {
            long point = packed[i] ^ Long.MIN_VALUE;
            points[i] = point & ~0xFFL;
            owners[i] = servers[(int) (point & 0xFF)];
        }
    }

    @Override
    public UpstreamServer choose(UpstreamServer[] candidates, int count, String key) {
        if (key == null) {
            return keyless.choose(candidates, count, null);
        }
        int at = firstAtOrAfter(hash(key));
        for (int k = 0; k < points.length; k++) {
            UpstreamServer owner = owners[(at + k) % points.length];
            for (int c = 0; c < count; c++) {
                if (candidates[c] == owner) {
                    return owner;
                }
            }
        }
        return candidates[0];
    }

    private int firstAtOrAfter(long hash) {
        int low = 0;
        int high = points.length;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (Long.compareUnsigned(points[mid], hash) < 0) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low == points.length ? 0 : low;
    }

    /** FNV-1a over the UTF-8 bytes, then MurmurHash3's finalizer to spread the bits over the ring. */
    static long hash(String key) {
        long h = 0xcbf29ce484222325L;
        for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }
}

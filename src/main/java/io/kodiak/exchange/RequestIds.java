package io.kodiak.exchange;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * ${request_id} / $request_id: 32 hex digits unique per request, like nginx's. Half is drawn at
 * random when the process starts (distinct across instances and restarts), half is a counter
 * passed through a 64-bit bijection, so ids never repeat within a process and do not tell a
 * client how many requests came before its own. Taking one costs an atomic increment; the text
 * is made only where an id is written.
 */
public final class RequestIds {
    private static final long PROCESS = new SecureRandom().nextLong();
    private static final AtomicLong NEXT = new AtomicLong();

    private RequestIds() {
    }

    /** Never 0 (which callers use for "none taken"). */
    public static long next() {
        return NEXT.incrementAndGet();
    }

    public static String format(long number) {
        char[] id = new char[32];
        hex(PROCESS, id, 0);
        hex(scramble(number), id, 16);
        return new String(id);
    }

    /** SplitMix64's finaliser: a bijection on 64-bit values, so distinct counters give distinct ids. */
    private static long scramble(long x) {
        x = (x ^ (x >>> 30)) * 0xbf58476d1ce4e5b9L;
        x = (x ^ (x >>> 27)) * 0x94d049bb133111ebL;
        return x ^ (x >>> 31);
    }

    private static void hex(long value, char[] into, int at) {
        for (int i = 15; i >= 0; i--) {
            into[at + i] = Character.forDigit((int) (value & 0xf), 16);
            value >>>= 4;
        }
    }
}

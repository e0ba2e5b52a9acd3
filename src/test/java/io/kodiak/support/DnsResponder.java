package io.kodiak.support;

import org.xbill.DNS.AAAARecord;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SRVRecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Type;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A DNS server for tests, on UDP at an ephemeral loopback port: answers A, AAAA and SRV queries
 * from records the test sets and changes while Kodiak runs; NXDOMAIN for a name it has none of;
 * and, when told to, no answer at all (a resolver that times out). Counts the queries per name,
 * so that a test waits for the next lookup rather than for time.
 */
public final class DnsResponder implements AutoCloseable {
    /** One SRV record's data. */
    public record Srv(int priority, int weight, int port, String target) {
    }

    private final DatagramSocket socket;
    private final Thread thread;
    /** Records by lower-case absolute name, then by type. */
    private final Map<String, Map<Integer, List<Record>>> zone = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> queries = new ConcurrentHashMap<>();
    private volatile boolean silent;
    private final java.util.Set<String> silenced = ConcurrentHashMap.newKeySet();

    public DnsResponder() throws IOException {
        socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        thread = new Thread(this::serve, "test-dns");
        thread.setDaemon(true);
        thread.start();
    }

    /** "127.0.0.1:PORT", as proxy.resolver.servers takes it. */
    public String address() {
        return "127.0.0.1:" + socket.getLocalPort();
    }

    /** {@code host}'s A and AAAA records from now on (an address with a colon is AAAA). */
    public void addresses(String host, long ttl, String... addresses) throws IOException {
        Name name = name(host);
        List<Record> a = new ArrayList<>();
        List<Record> aaaa = new ArrayList<>();
        for (String address : addresses) {
            InetAddress literal = InetAddress.getByName(address);
            if (literal instanceof Inet6Address) {
                aaaa.add(new AAAARecord(name, DClass.IN, ttl, literal));
            } else {
                a.add(new ARecord(name, DClass.IN, ttl, literal));
            }
        }
        zone.put(key(host), Map.of(Type.A, a, Type.AAAA, aaaa));
    }

    /** {@code service}'s SRV records from now on. */
    public void srv(String service, long ttl, Srv... records) throws TextParseException {
        Name name = name(service);
        List<Record> list = new ArrayList<>();
        for (Srv r : records) {
            list.add(new SRVRecord(name, DClass.IN, ttl, r.priority(), r.weight(), r.port(), name(r.target())));
        }
        zone.put(key(service), Map.of(Type.SRV, list));
    }

    /** {@code host} no longer exists: NXDOMAIN. */
    public void remove(String host) {
        zone.remove(key(host));
    }

    /** true: every query goes unanswered from now on, as from a server that is down. */
    public void silent(boolean silent) {
        this.silent = silent;
    }

    /** true: queries for {@code host} go unanswered from now on (its lookups time out); false: answered again. */
    public void silent(String host, boolean silent) {
        if (silent) {
            silenced.add(key(host));
        } else {
            silenced.remove(key(host));
        }
    }

    /** Queries received for {@code host} so far, of any type, answered or not. */
    public int queries(String host) {
        AtomicInteger count = queries.get(key(host));
        return count == null ? 0 : count.get();
    }

    private void serve() {
        byte[] buffer = new byte[512];
        while (!socket.isClosed()) {
            try {
                DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
                socket.receive(packet);
                Message query = new Message(java.util.Arrays.copyOf(packet.getData(), packet.getLength()));
                Record question = query.getQuestion();
                String key = question.getName().toString().toLowerCase(java.util.Locale.ROOT);
                queries.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
                if (silent || silenced.contains(key)) {
                    continue;
                }
                Message answer = new Message(query.getHeader().getID());
                answer.getHeader().setFlag(Flags.QR);
                answer.getHeader().setFlag(Flags.RD);
                answer.getHeader().setFlag(Flags.RA);
                answer.addRecord(question, Section.QUESTION);
                Map<Integer, List<Record>> records = zone.get(key);
                if (records == null) {
                    answer.getHeader().setRcode(Rcode.NXDOMAIN);
                } else {
                    for (Record record : records.getOrDefault(question.getType(), List.of())) {
                        answer.addRecord(record, Section.ANSWER);
                    }
                }
                byte[] wire = answer.toWire(512);
                socket.send(new DatagramPacket(wire, wire.length, packet.getSocketAddress()));
            } catch (IOException e) {
                if (socket.isClosed()) {
                    return;
                }
            }
        }
    }

    private static Name name(String host) throws TextParseException {
        return Name.fromString(host.endsWith(".") ? host : host + ".");
    }

    private static String key(String host) {
        return (host.endsWith(".") ? host : host + ".").toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    public void close() {
        socket.close();
    }
}

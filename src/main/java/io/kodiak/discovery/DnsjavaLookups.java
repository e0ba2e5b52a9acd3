package io.kodiak.discovery;

import io.kodiak.config.ProxyConfig;
import org.xbill.DNS.AAAARecord;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.ExtendedResolver;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Resolver;
import org.xbill.DNS.SRVRecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Type;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link Lookups} through dnsjava: one query per record type, straight to the configured servers
 * (no cache of dnsjava's in between: the TTL each answer carries is what schedules the next
 * query). A CNAME chain is followed as the recursive server returns it, in the same answer.
 */
public final class DnsjavaLookups implements Lookups {
    private final Resolver resolver;

    public DnsjavaLookups(ProxyConfig.Resolver settings) {
        ExtendedResolver extended;
        if (settings.servers().isEmpty()) {
            // dnsjava reads the system's configuration: /etc/resolv.conf and its peers.
            extended = new ExtendedResolver();
        } else {
            List<Resolver> servers = new ArrayList<>();
            for (InetSocketAddress server : settings.servers()) {
                servers.add(new SimpleResolver(server));
            }
            extended = new ExtendedResolver(servers);
        }
        // The whole query, every server and retry included, within timeout.
        extended.setTimeout(settings.timeout());
        this.resolver = extended;
    }

    @Override
    public Answer addresses(String host) throws LookupFailed {
        Name name = name(host);
        Message a = query(name, Type.A);
        if (a.getRcode() == Rcode.NXDOMAIN) {
            throw new LookupFailed("NXDOMAIN");
        }
        Message aaaa = query(name, Type.AAAA);
        List<Endpoint> found = new ArrayList<>();
        long ttl = Long.MAX_VALUE;
        for (Message answer : List.of(a, aaaa)) {
            for (Record record : answer.getSection(Section.ANSWER)) {
                String address = record instanceof ARecord r ? r.getAddress().getHostAddress()
                        : record instanceof AAAARecord r ? r.getAddress().getHostAddress() : null;
                if (address != null) {
                    found.add(Endpoint.address(address, host));
                }
                // A CNAME on the way counts: the answer is no better than its shortest-lived record.
                ttl = Math.min(ttl, record.getTTL());
            }
        }
        if (found.isEmpty()) {
            throw new LookupFailed("no A or AAAA records");
        }
        return new Answer(found, ttl);
    }

    @Override
    public Answer srv(String service) throws LookupFailed {
        Message answer = query(name(service), Type.SRV);
        if (answer.getRcode() == Rcode.NXDOMAIN) {
            throw new LookupFailed("NXDOMAIN");
        }
        List<Endpoint> found = new ArrayList<>();
        long ttl = Long.MAX_VALUE;
        String targetFailure = null;
        for (Record record : answer.getSection(Section.ANSWER)) {
            ttl = Math.min(ttl, record.getTTL());
            if (!(record instanceof SRVRecord srv) || srv.getTarget().equals(Name.root) || srv.getPort() == 0) {
                // Target "." says the service is not offered there (RFC 2782); port 0 can never be
                // connected to, and as a server it would only fail every attempt sent its way.
                continue;
            }
            String target = srv.getTarget().toString(true);
            try {
                Answer addresses = addresses(target);
                ttl = Math.min(ttl, addresses.ttlSeconds());
                for (Endpoint address : addresses.endpoints()) {
                    found.add(new Endpoint(address.address(), srv.getPort(), srv.getWeight(), srv.getPriority(), target));
                }
            } catch (LookupFailed e) {
                targetFailure = target + ": " + e.getMessage();
            }
        }
        if (found.isEmpty()) {
            throw new LookupFailed(targetFailure != null ? "no target resolved (" + targetFailure + ")" : "no usable SRV records");
        }
        return new Answer(found, ttl);
    }

    private Message query(Name name, int type) throws LookupFailed {
        Message response;
        try {
            response = resolver.send(Message.newQuery(Record.newRecord(name, type, DClass.IN)));
        } catch (IOException e) {
            throw new LookupFailed("no answer (" + (e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName()) + ")");
        }
        int rcode = response.getRcode();
        if (rcode != Rcode.NOERROR && rcode != Rcode.NXDOMAIN) {
            throw new LookupFailed(Rcode.string(rcode));
        }
        return response;
    }

    /** Names are asked as written: absolute, with no search domain appended. */
    private static Name name(String host) throws LookupFailed {
        try {
            return Name.fromString(host.endsWith(".") ? host : host + ".");
        } catch (TextParseException e) {
            throw new LookupFailed("not a DNS name (" + e.getMessage() + ")");
        }
    }
}

package io.kodiak.support;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Optional;

/** This host's own addresses beyond loopback: a peer that is not loopback, without another machine. */
public final class LocalAddresses {
    private LocalAddresses() {
    }

    /** An IPv4 address of an interface that is up, neither loopback nor link-local; empty when there is none. */
    public static Optional<String> nonLoopback() throws SocketException {
        for (NetworkInterface nic : NetworkInterface.networkInterfaces().toList()) {
            if (!nic.isUp() || nic.isLoopback()) {
                continue;
            }
            for (InetAddress address : nic.inetAddresses().toList()) {
                if (address instanceof Inet4Address && !address.isLoopbackAddress() && !address.isLinkLocalAddress()) {
                    return Optional.of(address.getHostAddress());
                }
            }
        }
        return Optional.empty();
    }
}

package io.kodiak.upstream;

import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.filterchain.FilterChainBuilder;
import org.glassfish.grizzly.filterchain.TransportFilter;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
import org.glassfish.grizzly.nio.transport.TCPNIOTransportBuilder;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;

import static io.kodiak.support.Await.await;
import static org.junit.jupiter.api.Assertions.assertFalse;

class IdleCheckTest {

    @Test
    void aQuietLiveConnectionPassesAndOneResetByItsPeerIsSeenBeforeAnyWrite() throws Exception {
        TCPNIOTransport transport = TCPNIOTransportBuilder.newInstance().build();
        transport.setProcessor(FilterChainBuilder.stateless().add(new TransportFilter()).build());
        transport.start();
        try (ServerSocket server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            Connection<?> connection = transport.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                    server.getLocalPort())).get(5, TimeUnit.SECONDS);
            Socket accepted = server.accept();
            assertFalse(IdleCheck.closedByPeer(connection), "a live connection with nothing to read");
            accepted.setSoLinger(true, 0);
            accepted.close();
            await(() -> IdleCheck.closedByPeer(connection), "the reset is seen without writing");
        } finally {
            transport.shutdownNow();
        }
    }
}

package io.kodiak.daemon.cli;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/** Whether something accepts TCP connections at an address. */
final class Ports {
    private Ports() {
    }

    static boolean accepting(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 1_000);
            return true;
        } catch (IOException | IllegalArgumentException refused) {
            return false;
        }
    }
}

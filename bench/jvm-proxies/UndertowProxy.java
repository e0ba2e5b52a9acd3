import io.undertow.Undertow;
import io.undertow.UndertowOptions;
import io.undertow.server.handlers.proxy.LoadBalancingProxyClient;
import io.undertow.server.handlers.proxy.ProxyHandler;

import java.net.URI;

/**
 * Undertow's reverse proxy as a Java shop would set it up, for bin/bench.sh throughput (target
 * undertow): ProxyHandler with LoadBalancingProxyClient, one I/O thread per core like Kodiak's
 * selectors, upstream connections capped like Kodiak's pool (1000 per upstream, spread over the I/O
 * threads), and a wait queue so that requests beyond the cap wait instead of getting 503.
 * Usage: java -cp CLASSPATH UndertowProxy.java LISTEN_PORT UPSTREAM_PORT
 */
public class UndertowProxy {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int upstreamPort = Integer.parseInt(args[1]);
        int ioThreads = Runtime.getRuntime().availableProcessors();
        int perThread = Math.max(1, 1000 / ioThreads);
        LoadBalancingProxyClient client = new LoadBalancingProxyClient()
                .addHost(new URI("http://127.0.0.1:" + upstreamPort))
                .setConnectionsPerThread(perThread)
                .setSoftMaxConnectionsPerThread(perThread)
                .setMaxQueueSize(100_000)
                .setTtl(60_000);
        ProxyHandler proxy = ProxyHandler.builder()
                .setProxyClient(client)
                .setMaxRequestTime(30_000)
                .setReuseXForwarded(true)
                .build();
        Undertow.builder()
                .addHttpListener(port, "127.0.0.1")
                .setIoThreads(ioThreads)
                .setServerOption(UndertowOptions.ALWAYS_SET_KEEP_ALIVE, false)
                .setHandler(proxy)
                .build()
                .start();
        System.out.println("undertow proxy on 127.0.0.1:" + port + " -> 127.0.0.1:" + upstreamPort);
    }
}

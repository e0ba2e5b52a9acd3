package org.mule.config.pool;

import java.util.Iterator;
import java.util.ServiceLoader;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;

import org.mule.api.MuleContext;
import org.mule.api.MuleRuntimeException;
import org.mule.api.config.ThreadingProfile;
import org.mule.api.context.MuleContextAware;
import org.mule.config.PreferredObjectSelector;
import org.mule.config.i18n.MessageFactory;

/**
 * Stands in for mule-core 3.6.0's class of the same name, which must therefore come before
 * mule-core on the class path. The original looks its providers up through
 * {@code javax.imageio.spi.ServiceRegistry}, which on JDK 9+ refuses every class that is not an
 * ImageIO service, so no Mule context can start. The API (fields, constructor, methods) is kept
 * identical so that Mule's compiled callers and {@link DefaultThreadPoolFactory} link against it.
 */
public abstract class ThreadPoolFactory implements MuleContextAware {

  protected MuleContext muleContext;

  /**
   * Finds the factory named in {@code META-INF/services/org.mule.config.pool.ThreadPoolFactory}
   * with the standard {@link ServiceLoader}, choosing among several by Mule's {@code @Preferred}
   * weight exactly as the original does.
   */
  public static ThreadPoolFactory newInstance() {
    Iterator<ThreadPoolFactory> providers = ServiceLoader.load(ThreadPoolFactory.class, providerClassLoader()).iterator();
    ThreadPoolFactory selected = new PreferredObjectSelector<ThreadPoolFactory>().select(providers);
    if (selected == null) {
      throw new MuleRuntimeException(MessageFactory.createStaticMessage(
          "No org.mule.config.pool.ThreadPoolFactory provider found through java.util.ServiceLoader; is mule-core on the class path?"));
    }
    return selected;
  }

  // ImageIO's registry used the context class loader; keep that, but fall back to ours when a
  // thread has none (e.g. threads created by some native or pool code).
  private static ClassLoader providerClassLoader() {
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    return context != null ? context : ThreadPoolFactory.class.getClassLoader();
  }

  @Override
  public void setMuleContext(MuleContext context) {
    this.muleContext = context;
  }

  public abstract ThreadPoolExecutor createPool(String name, ThreadingProfile profile);

  public abstract ScheduledThreadPoolExecutor createScheduledPool(String name, ThreadingProfile profile);
}

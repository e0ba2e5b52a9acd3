package io.kodiak.mule;

import java.util.Properties;

import org.mule.api.MuleContext;
import org.mule.api.MuleException;
import org.mule.config.DefaultMuleConfiguration;
import org.mule.config.spring.SpringXmlConfigurationBuilder;
import org.mule.context.DefaultMuleContextFactory;

/** One running Mule 3.6 context built from a Spring XML configuration. */
public final class EmbeddedMule implements AutoCloseable {

  private final MuleContext context;

  private EmbeddedMule(MuleContext context) {
    this.context = context;
  }

  /**
   * Builds, initialises and starts the context; returns once every listener has been started.
   * DefaultMuleConfiguration picks up -Dmule.workingDirectory itself, which is how the scripts
   * keep Mule's .mule/ folder out of the repository.
   */
  public static EmbeddedMule start(String configResource, Properties placeholders) throws MuleException {
    MuleContext context = new DefaultMuleContextFactory().createMuleContext(
        new SpringXmlConfigurationBuilder(configResource), placeholders, new DefaultMuleConfiguration());
    try {
      context.start();
    } catch (MuleException | RuntimeException e) {
      context.dispose();
      throw e;
    }
    return new EmbeddedMule(context);
  }

  public String workingDirectory() {
    return context.getConfiguration().getWorkingDirectory();
  }

  /** Stops listeners and dispatchers, then releases every resource the context holds. */
  @Override
  public void close() throws MuleException {
    try {
      context.stop();
    } finally {
      context.dispose();
    }
  }
}

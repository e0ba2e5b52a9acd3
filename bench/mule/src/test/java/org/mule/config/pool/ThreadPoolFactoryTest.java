package org.mule.config.pool;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import org.junit.jupiter.api.Test;

class ThreadPoolFactoryTest {

  @Test
  void findsMulesDefaultFactoryThroughServiceLoader() {
    assertInstanceOf(DefaultThreadPoolFactory.class, ThreadPoolFactory.newInstance());
  }

  @Test
  void ourClassShadowsTheOneInMuleCore() {
    String origin = ThreadPoolFactory.class.getProtectionDomain().getCodeSource().getLocation().toString();
    assertFalse(origin.contains("mule-core"), "ThreadPoolFactory was loaded from " + origin);
  }
}

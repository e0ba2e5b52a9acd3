package io.kodiak.config;

import com.typesafe.config.ConfigIncludeContext;
import com.typesafe.config.ConfigIncluder;
import com.typesafe.config.ConfigIncluderFile;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigParseable;

import java.io.File;

/**
 * Refuses an include whose file is missing. HOCON reads {@code include "routes.conf"} as optional
 * and a missing file as empty, so a renamed or mistyped file would silently drop a block of
 * routes or upstreams; nginx refuses the same. The include's own text names the file in the
 * problem ({@link Missing}).
 */
final class MissingIncludes implements ConfigIncluder, ConfigIncluderFile {
    /** An include named a file that is not there. */
    static final class Missing extends RuntimeException {
        final String what;

        Missing(String what, Throwable cause) {
            super(what, cause, false, false);
            this.what = what;
        }
    }

    private ConfigIncluder fallback;

    @Override
    public ConfigIncluder withFallback(ConfigIncluder next) {
        MissingIncludes copy = new MissingIncludes();
        copy.fallback = next;
        return copy;
    }

    @Override
    public ConfigObject include(ConfigIncludeContext context, String what) {
        ConfigParseable source = context.relativeTo(what);
        if (source == null) {
            return fallback.include(context, what);
        }
        return parse(source, context.parseOptions(), what);
    }

    @Override
    public ConfigObject includeFile(ConfigIncludeContext context, File what) {
        try {
            return com.typesafe.config.ConfigFactory.parseFile(what, context.parseOptions().setAllowMissing(false)).root();
        } catch (com.typesafe.config.ConfigException.IO missing) {
            throw new Missing(what.getPath(), missing);
        }
    }

    private static ConfigObject parse(ConfigParseable source, ConfigParseOptions options, String what) {
        try {
            return source.parse(options.setAllowMissing(false));
        } catch (com.typesafe.config.ConfigException.IO missing) {
            throw new Missing(what, missing);
        }
    }
}

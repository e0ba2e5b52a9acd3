package io.kodiak.bench.report;

import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.Locale;

/** How numbers are written in reports: grouped thousands, three significant digits unless told. */
final class Numbers {

    private Numbers() {
    }

    /** One number: {@code digits} decimals, or three significant digits (whole numbers from 100 up). */
    static String format(double v, Integer digits) {
        if (Double.isNaN(v)) {
            return "–";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "∞" : "-∞";
        }
        return pattern(digits != null ? digits : decimals(v, v, v)).format(v);
    }

    /** A median with its range, all three with the decimals the median needs, so they line up. */
    static String range(Spread s, Integer digits) {
        if (!Double.isFinite(s.value())) {
            return "–";
        }
        int d = digits != null ? digits : decimals(s.value(), s.min(), s.max());
        String value = format(s.value(), d);
        return s.varies() ? value + " [" + format(s.min(), d) + "–" + format(s.max(), d) + "]" : value;
    }

    private static int decimals(double value, double min, double max) {
        if (value == Math.rint(value) && min == Math.rint(min) && max == Math.rint(max)) {
            return 0; // counts
        }
        double a = Math.abs(value);
        if (a >= 100) {
            return 0;
        }
        if (a == 0) {
            return 2;
        }
        return (int) Math.min(6, Math.max(0, 2 - Math.floor(Math.log10(a))));
    }

    private static DecimalFormat pattern(int decimals) {
        DecimalFormat f = new DecimalFormat(decimals == 0 ? "#,##0" : "#,##0." + "0".repeat(decimals),
                DecimalFormatSymbols.getInstance(Locale.ROOT));
        return f;
    }
}

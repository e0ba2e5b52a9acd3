package io.kodiak.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class NumbersTest {

    @Test
    void threeSignificantDigitsAndWholeNumbersFromAHundred() {
        assertEquals("36,288", Numbers.format(36288.4, null));
        assertEquals("30.7", Numbers.format(30.71, null));
        assertEquals("2.47", Numbers.format(2.466, null));
        assertEquals("0.0123", Numbers.format(0.01234, null));
        assertEquals("12", Numbers.format(12, null), "a count stays whole");
        assertEquals("1.50", Numbers.format(1.5, 2));
    }

    @Test
    void aRangeUsesTheMediansDecimalsAndIsLeftOutWhenRunsAgree() {
        assertEquals("31.0 [27.3–34.1]", Numbers.range(Spread.median(List.of(27.3, 31.0, 34.1)), null));
        assertEquals("31", Numbers.range(Spread.median(List.of(31.0)), null), "a whole value shows whole");
        assertEquals("5", Numbers.range(Spread.median(List.of(5.0, 5.0)), null));
        assertEquals("–", Numbers.format(Double.NaN, null));
    }

    @Test
    void anEvenNumberOfRunsTakesTheMiddlePairsMean() {
        assertEquals(2.5, Spread.median(List.of(4.0, 1.0, 2.0, 3.0)).value());
        assertEquals(10.0, Spread.total(List.of(4.0, 1.0, 2.0, 3.0)).value());
    }
}

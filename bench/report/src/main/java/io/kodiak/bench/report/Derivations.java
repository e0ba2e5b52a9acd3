package io.kodiak.bench.report;

import com.ezylang.evalex.EvaluationException;
import com.ezylang.evalex.Expression;
import com.ezylang.evalex.parser.ParseException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Set;

/**
 * The report block's derived fields: a bench script writes what it counted (ticks, microseconds, bytes),
 * the formulas here (EvalEx expressions) turn those into the figures a reader compares, once, when the
 * results are written, so results.json holds both.
 */
final class Derivations {

    private Derivations() {
    }

    /** A formula that does not parse, or names no field. */
    static final class BadFormula extends IllegalArgumentException {
        BadFormula(String message, Throwable cause) {
            super(message, cause);
        }
    }

    static void apply(JsonNode derive, List<ObjectNode> rows) {
        if (derive == null) {
            return;
        }
        for (JsonNode d : derive) {
            String field = d.get("field").asText();
            String formula = d.get("formula").asText();
            Integer digits = d.hasNonNull("digits") ? d.get("digits").asInt() : null;
            Set<String> names;
            try {
                names = new Expression(formula).getUsedVariables();
            } catch (ParseException e) {
                throw new BadFormula("derive " + field + ": the formula " + formula + " does not parse: " + e.getMessage(), e);
            }
            for (ObjectNode row : rows) {
                BigDecimal value = evaluate(formula, names, row);
                if (value == null) {
                    row.putNull(field);
                } else if (digits == null) {
                    row.put(field, value.doubleValue());
                } else if (digits == 0) {
                    row.put(field, value.setScale(0, RoundingMode.HALF_EVEN).longValue()); // a count reads as one
                } else {
                    row.put(field, value.setScale(digits, RoundingMode.HALF_EVEN).doubleValue());
                }
            }
        }
    }

    private static BigDecimal evaluate(String formula, Set<String> names, ObjectNode row) {
        Expression e = new Expression(formula);
        for (String name : names) {
            JsonNode v = row.get(name);
            if (v == null || !v.isNumber()) {
                return null; // not measured in this row: neither is what depends on it
            }
            e.with(name, v.decimalValue());
        }
        try {
            return e.evaluate().getNumberValue();
        } catch (EvaluationException | ParseException | ArithmeticException ex) {
            return null; // a division by zero: nothing was measured to divide
        }
    }
}

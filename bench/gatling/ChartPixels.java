import java.awt.image.BufferedImage;
import java.io.File;
import javax.imageio.ImageIO;

/**
 * Counts the pixels of given colours in a screenshot: how the render check tells that a chart's bars
 * were actually drawn by a browser, not just present as markup.
 *
 *   java ChartPixels.java SHOT.png '#1565c0' '#0d47a1' ...   prints "colour count" per line
 */
public class ChartPixels {
    /** Anti-aliasing and colour management may move a channel by a step or two inside a solid bar. */
    private static final int TOLERANCE = 6;

    public static void main(String[] args) throws Exception {
        BufferedImage image = ImageIO.read(new File(args[0]));
        if (image == null) {
            System.err.println("ChartPixels: " + args[0] + " is not an image");
            System.exit(2);
        }
        for (int c = 1; c < args.length; c++) {
            int rgb = Integer.parseInt(args[c].substring(1), 16);
            long count = 0;
            for (int y = 0; y < image.getHeight(); y++) {
                for (int x = 0; x < image.getWidth(); x++) {
                    if (close(image.getRGB(x, y), rgb)) {
                        count++;
                    }
                }
            }
            System.out.println(args[c] + " " + count);
        }
    }

    private static boolean close(int a, int b) {
        for (int shift = 0; shift <= 16; shift += 8) {
            if (Math.abs(((a >> shift) & 0xff) - ((b >> shift) & 0xff)) > TOLERANCE) {
                return false;
            }
        }
        return true;
    }
}

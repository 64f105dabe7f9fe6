/*
 * CodecProbe: the "codecs" op of TableAdmin. Tests every compression algorithm HBase knows
 * (Compression.Algorithm.values()) in THIS JVM, with the jars, native libraries and hbase-site.xml
 * (hbase.io.compress.<codec>.codec) on its classpath, two ways:
 *   1. CompressionTest.testCompression(algo): the check the master runs before it creates or alters
 *      a table (TableDescriptorChecker.checkCompression, hbase.table.sanity.checks) and a region
 *      server runs for hbase.regionserver.codecs at start-up;
 *   2. a round trip of 64 KiB through the codec's compression and decompression streams, which
 *      catches a codec whose class loads but whose native code fails on first use.
 * Needs no cluster connection. The answer is the servers' codecs only when this JVM runs with the
 * servers' installation (the same lib dir, native libraries and configuration).
 *
 * Response body: {"codecs":[{"name":"GZ","usable":true},{"name":"LZO","usable":false,"error":"..."}]}
 */
package tsingest.admin;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.util.CompressionTest;
import org.apache.hadoop.io.compress.Compressor;
import org.apache.hadoop.io.compress.Decompressor;
import org.apache.hbase.thirdparty.com.google.gson.JsonArray;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;

final class CodecProbe {
  private static final int SAMPLE_BYTES = 64 * 1024;
  private static final int MAX_ERROR_CHARS = 400;

  private CodecProbe() {}

  /** One entry per algorithm, in HBase's declaration order. */
  static JsonObject probeAll() {
    JsonArray codecs = new JsonArray();
    for (Compression.Algorithm algo : Compression.Algorithm.values()) {
      JsonObject c = new JsonObject();
      c.addProperty("name", algo.name());
      String error = probe(algo);
      c.addProperty("usable", error == null);
      if (error != null) {
        c.addProperty("error", error);
      }
      codecs.add(c);
    }
    JsonObject o = new JsonObject();
    o.add("codecs", codecs);
    return o;
  }

  /** null when the codec is usable, else why not (short). */
  static String probe(Compression.Algorithm algo) {
    try {
      CompressionTest.testCompression(algo);
    } catch (Throwable t) {
      return "CompressionTest failed: " + shortChain(t);
    }
    try {
      roundTrip(algo);
      return null;
    } catch (Throwable t) {
      return "CompressionTest passed but a " + (SAMPLE_BYTES / 1024) + " KiB round trip failed: "
          + shortChain(t);
    }
  }

  private static void roundTrip(Compression.Algorithm algo) throws IOException {
    byte[] input = sample();
    ByteArrayOutputStream packed = new ByteArrayOutputStream();
    Compressor compressor = algo.getCompressor();
    try (OutputStream os = algo.createCompressionStream(packed, compressor, 0)) {
      os.write(input);
      os.flush();
    } finally {
      algo.returnCompressor(compressor);
    }
    byte[] back;
    Decompressor decompressor = algo.getDecompressor();
    try (InputStream is = algo.createDecompressionStream(
        new ByteArrayInputStream(packed.toByteArray()), decompressor, 0)) {
      back = is.readNBytes(input.length + 1);
    } finally {
      algo.returnDecompressor(decompressor);
    }
    if (!Arrays.equals(input, back)) {
      throw new IOException("decompressed " + back.length + " bytes differ from the "
          + input.length + " written");
    }
  }

  /** Cell-like text: repetitive enough to compress, varied enough to exercise the codec. */
  private static byte[] sample() {
    StringBuilder sb = new StringBuilder(SAMPLE_BYTES + 64);
    for (int i = 0; sb.length() < SAMPLE_BYTES; i++) {
      sb.append("sensor-").append(i % 97).append(",temp=").append((i * 7919) % 1000).append(';');
    }
    return sb.substring(0, SAMPLE_BYTES).getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * The cause chain without the links that only repeat their cause ("new X(cause)" makes the
   * message cause.toString()), cut to a few hundred characters.
   */
  static String shortChain(Throwable t) {
    StringBuilder sb = new StringBuilder();
    int depth = 0;
    for (Throwable c = t; c != null && depth < 6; c = c.getCause() == c ? null : c.getCause()) {
      depth++;
      Throwable next = c.getCause();
      if (next != null && next != c && String.valueOf(c.getMessage()).equals(next.toString())) {
        continue;
      }
      if (sb.length() > 0) {
        sb.append(" <- ");
      }
      String msg = c.getMessage() == null ? "" : c.getMessage().split("\n", 2)[0];
      sb.append(c.getClass().getSimpleName()).append(msg.isEmpty() ? "" : ": " + msg);
      StackTraceElement[] frames = c.getStackTrace();
      if (msg.isEmpty() && frames.length > 0) {
        // No message (e.g. UnsupportedOperationException): where it was thrown says more.
        sb.append(" at ").append(frames[0].getClassName()).append('.')
            .append(frames[0].getMethodName());
      }
    }
    String s = sb.toString();
    return s.length() > MAX_ERROR_CHARS ? s.substring(0, MAX_ERROR_CHARS) + "..." : s;
  }
}

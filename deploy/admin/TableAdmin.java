/*
 * TableAdmin: administers tsingest's HBase tables through HBase's own Java Admin API (the API the
 * HBase shell calls). The REST gateway cannot create pre-split tables and has no split endpoint, and
 * hbase-shell is not on Maven Central for 2.6.x, so this one file is the admin path.
 *
 * Protocol: ONE JSON request on stdin, ONE JSON line on stdout, logs on stderr only. Or a session
 * (Session.java): a first line {"op":"session"}, then one request per line, one response line each,
 * on one cached connection, until stdin ends.
 *   {"op":"ensureTable","table":"t","family":"d","splits":["AQ==",...],
 *    "familyAttrs":{"VERSIONS":1,"TTL":"FOREVER","BLOOMFILTER":"ROW","COMPRESSION":"NONE"},
 *    "tableAttrs":{"tsingest.salt.buckets":"16"},"immutableTableAttrs":["tsingest.salt.buckets"],
 *    "dryRun":false}
 *   {"op":"describe","table":"t"}  {"op":"drop","table":"t"}
 *   {"op":"split","table":"t","splitPoint":"CIA="}  {"op":"ping"}
 *   {"op":"codecs"}: every Compression.Algorithm tested in this JVM, no cluster connection
 *     (CodecProbe.java): {"codecs":[{"name":"GZ","usable":true},
 *     {"name":"LZO","usable":false,"error":"..."},...]}
 * Optional on every request: "zk":"host[:port][,host[:port]]", "zkParent":"/hbase",
 *   "timeoutMs":120000 (whole-call deadline), "conf":{"hbase.key":"value"}.
 * Response: {"ok":true,"op":...,...} exit 0, or {"ok":false,"op":...,"code":...,"error":...,
 *   "table":...,"field":...} exit 1. Codes: BAD_REQUEST TABLE_NOT_FOUND UNSUPPORTED_COMPRESSION
 *   IMMUTABLE_ATTR_CONFLICT SPLIT_FAILED TIMEOUT UNAVAILABLE HBASE_ERROR INTERNAL.
 *
 * Build:  javac -cp "/tmp/stk/hbase-lib/*" -d /tmp/stk/admin-classes deploy/admin/*.java
 * Run (JDK 17; the --add-opens/--add-exports are HBase bin/hbase's JDK 11+ flags plus the JDK 17
 * test flags; the exact argv used for verification, one argument per line):
 *   java
 *   -XX:+IgnoreUnrecognizedVMOptions -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss512k -Xmx256m
 *   --add-modules jdk.unsupported
 *   --add-opens java.base/java.lang=ALL-UNNAMED
 *   --add-opens java.base/java.lang.reflect=ALL-UNNAMED
 *   --add-opens java.base/java.io=ALL-UNNAMED
 *   --add-opens java.base/java.net=ALL-UNNAMED
 *   --add-opens java.base/java.nio=ALL-UNNAMED
 *   --add-opens java.base/sun.nio.ch=ALL-UNNAMED
 *   --add-opens java.base/java.util=ALL-UNNAMED
 *   --add-opens java.base/java.util.concurrent=ALL-UNNAMED
 *   --add-opens java.base/java.util.concurrent.atomic=ALL-UNNAMED
 *   --add-opens java.base/jdk.internal.misc=ALL-UNNAMED
 *   --add-opens java.base/jdk.internal.ref=ALL-UNNAMED
 *   --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
 *   --add-exports java.security.jgss/sun.security.krb5=ALL-UNNAMED
 *   --add-exports java.base/sun.net.dns=ALL-UNNAMED
 *   --add-exports java.base/sun.net.util=ALL-UNNAMED
 *   -Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true
 *   -Dio.netty.tryReflectionSetAccessible=true
 *   -cp /tmp/stk/admin-classes:/tmp/stk/hbase-lib/*:/tmp/hb/conf
 *   tsingest.admin.TableAdmin
 * (/tmp/hb/conf supplies hbase-site.xml; without it pass "zk" in the request.) deploy/admin/table-admin
 * is the same argv as a launcher script (HBASE_HOME / HBASE_LIB / HBASE_CONF_DIR / TABLE_ADMIN_CLASSES).
 * Without the module flags the tool still works but HBase logs InaccessibleObjectException warnings
 * and falls back from its Unsafe code paths. One call takes ~1.4 s (ping) to ~2.5 s (create/alter).
 */
package tsingest.admin;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.KeepDeletedCells;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableExistsException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotEnabledException;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.regionserver.BloomType;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.CompressionTest;
import org.apache.hbase.thirdparty.com.google.gson.JsonArray;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonNull;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.apache.hbase.thirdparty.com.google.gson.JsonPrimitive;

public final class TableAdmin {
  private static final int MAX_REQUEST_BYTES = 4 << 20;
  static final long DEFAULT_TIMEOUT_MS = 120_000;
  /** Family attributes this tool reads and writes, in the HBase shell's spelling. */
  private static final List<String> FAMILY_KEYS = List.of("VERSIONS", "MIN_VERSIONS", "TTL",
      "BLOOMFILTER", "COMPRESSION", "DATA_BLOCK_ENCODING", "BLOCKSIZE", "IN_MEMORY", "BLOCKCACHE",
      "KEEP_DELETED_CELLS", "NEW_VERSION_BEHAVIOR");

  private static PrintStream stdout;
  private static final AtomicBoolean responded = new AtomicBoolean(false);
  private static volatile int exitCode = 1;

  /** A failure with a protocol code; table and field name what the caller got wrong. */
  static final class AdminException extends Exception {
    private static final long serialVersionUID = 1L;
    final String code;
    final String field;

    AdminException(String code, String field, String message, Throwable cause) {
      super(message, cause);
      this.code = code;
      this.field = field;
    }

    AdminException(String code, String field, String message) {
      this(code, field, message, null);
    }
  }

  /** The parsed request plus the deadline every wait is bounded by. */
  static final class Request {
    final JsonObject json;
    final String op;
    final long deadlineNanos;
    final String table;

    Request(JsonObject json, String op, long timeoutMs) {
      this.json = json;
      this.op = op;
      this.deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
      this.table = json.has("table") && json.get("table").isJsonPrimitive()
          ? json.get("table").getAsString() : null;
    }

    long remainingMs() {
      return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
    }
  }

  public static void main(String[] args) {
    // Keep stdout for the response lines: anything else that prints to System.out (a logger's
    // console appender created later, a library's println) lands on stderr instead.
    stdout = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    System.setOut(System.err);
    if (System.getProperty("org.apache.logging.log4j.level") == null) {
      System.setProperty("org.apache.logging.log4j.level", "WARN");
    }
    InputStream in = new BufferedInputStream(System.in);
    String first;
    try {
      first = readLine(in);
    } catch (IOException | AdminException e) {
      respond(error(null, null, "BAD_REQUEST", null, "request: " + e.getMessage()), 1);
      Runtime.getRuntime().halt(exitCode);
      return;
    }
    if (first != null && Session.opens(first)) {
      Session.serve(in, stdout);
      System.err.flush();
      Runtime.getRuntime().halt(0);
    }
    String op = null;
    String table = null;
    try {
      JsonObject json = parseRequest(first == null ? readAll(in, "") : readAll(in, first + "\n"));
      op = optString(json, "op");
      if (op == null) {
        throw new AdminException("BAD_REQUEST", "op", "request: field 'op' is required");
      }
      long timeoutMs = optLong(json, "timeoutMs", DEFAULT_TIMEOUT_MS);
      Request req = new Request(json, op, timeoutMs);
      table = req.table;
      startWatchdog(op, table, timeoutMs);
      JsonObject result = run(req, null);
      result.addProperty("ok", true);
      result.addProperty("op", op);
      respond(result, 0);
    } catch (AdminException e) {
      respond(error(op, table, e.code, e.field, e.getMessage()), 1);
      logCause(e);
    } catch (Throwable t) {
      respond(error(op, table, "INTERNAL", null, describe(t)), 1);
      t.printStackTrace(System.err);
    }
    System.err.flush();
    Runtime.getRuntime().halt(exitCode);
  }

  /**
   * Runs one request. {@code session} is null for a one-shot call (its own connection, closed after);
   * a session lends its cached connection instead.
   */
  static JsonObject run(Request req, Session session) throws AdminException {
    while (true) {
      try {
        return runOnce(req, session);
      } catch (AdminException e) {
        // A master that is up but still initializing (it answers PleaseHoldException for its first
        // ~10-30 s, longer on a slow machine) is waited for within the request's deadline; the
        // client's own retries give up after a few seconds. A cluster that is down is not.
        if (!masterStarting(e) || req.remainingMs() < 2 * START_WAIT_MS) {
          throw e;
        }
        System.err.println("tsingest-table-admin: the master is still starting (" + e.getMessage()
            + "); asking again in " + START_WAIT_MS + " ms");
        sleep(START_WAIT_MS);
      }
    }
  }

  private static final long START_WAIT_MS = 1_000;

  /**
   * An UNAVAILABLE answer from a master or region server that runs but has not finished starting
   * (or a region, hbase:meta among them, not yet open on it).
   */
  static boolean masterStarting(AdminException e) {
    String lower = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
    return "UNAVAILABLE".equals(e.code) && (lower.contains("pleasehold")
        || lower.contains("master is initializing") || lower.contains("servernotrunningyet")
        || lower.contains("notservingregion"));
  }

  private static JsonObject runOnce(Request req, Session session) throws AdminException {
    switch (req.op) {
      case "ensureTable":
      case "describe":
      case "drop":
      case "split":
      case "compact":
      case "ping":
        break;
      case "codecs":
        // Tests the codecs in this JVM; no cluster connection (works while HBase is down).
        return CodecProbe.probeAll();
      default:
        throw new AdminException("BAD_REQUEST", "op", "request: unknown op '" + req.op
            + "' (expected ensureTable, describe, drop, split, compact, ping or codecs)");
    }
    // Validate everything that needs no cluster before connecting.
    TableName tn = req.op.equals("ping") ? null : tableName(req);
    EnsureSpec spec = req.op.equals("ensureTable") ? EnsureSpec.parse(req, tn) : null;
    byte[] splitPoint = req.op.equals("split") ? splitPoint(req, tn) : null;
    Configuration conf = configure(req);
    Connection conn = null;
    try {
      conn = session == null ? ConnectionFactory.createConnection(conf) : session.connection(req, conf);
    } catch (Exception e) {
      throw classify(e, req.table);
    }
    try (Admin admin = conn.getAdmin()) {
      switch (req.op) {
        case "ensureTable":
          return Ops.ensureTable(conn, admin, tn, spec, req);
        case "describe":
          return Ops.describe(conn, admin, tn);
        case "drop":
          return Ops.drop(admin, tn);
        case "split":
          return Ops.split(conn, admin, tn, splitPoint, req);
        case "compact":
          return Ops.compact(admin, tn, req);
        default:
          return Ops.ping(admin);
      }
    } catch (AdminException e) {
      throw e;
    } catch (Exception e) {
      throw classify(e, req.table);
    } finally {
      if (session == null) {
        closeQuietly(conn);
      }
    }
  }

  static void closeQuietly(Connection conn) {
    try {
      conn.close();
    } catch (IOException | RuntimeException e) {
      System.err.println("tsingest-table-admin: closing the connection: " + describe(e));
    }
  }

  // ---------------------------------------------------------------- request parsing

  /** One line of stdin without its newline (null at end of input), at most MAX_REQUEST_BYTES. */
  static String readLine(InputStream in) throws IOException, AdminException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) >= 0 && b != '\n') {
      buf.write(b);
      if (buf.size() > MAX_REQUEST_BYTES) {
        throw new AdminException("BAD_REQUEST", null, "request: larger than " + MAX_REQUEST_BYTES
            + " bytes");
      }
    }
    return b < 0 && buf.size() == 0 ? null : buf.toString(StandardCharsets.UTF_8);
  }

  /** {@code head} followed by the rest of stdin, at most MAX_REQUEST_BYTES in all. */
  private static String readAll(InputStream in, String head) throws IOException, AdminException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    buf.write(head.getBytes(StandardCharsets.UTF_8));
    byte[] chunk = new byte[8192];
    int n;
    while ((n = in.read(chunk)) >= 0) {
      buf.write(chunk, 0, n);
      if (buf.size() > MAX_REQUEST_BYTES) {
        throw new AdminException("BAD_REQUEST", null, "request: larger than " + MAX_REQUEST_BYTES
            + " bytes");
      }
    }
    return buf.toString(StandardCharsets.UTF_8);
  }

  static JsonObject parseRequest(String raw) throws AdminException {
    String text = raw.trim();
    if (text.isEmpty()) {
      throw new AdminException("BAD_REQUEST", null, "request: empty stdin, expected one JSON object");
    }
    try {
      JsonElement el = JsonParser.parseString(text);
      if (!el.isJsonObject()) {
        throw new AdminException("BAD_REQUEST", null, "request: expected a JSON object");
      }
      return el.getAsJsonObject();
    } catch (RuntimeException e) {
      throw new AdminException("BAD_REQUEST", null, "request: invalid JSON: " + e.getMessage());
    }
  }

  static String optString(JsonObject o, String key) throws AdminException {
    JsonElement el = o.get(key);
    if (el == null || el.isJsonNull()) {
      return null;
    }
    if (!el.isJsonPrimitive() || !el.getAsJsonPrimitive().isString()) {
      throw new AdminException("BAD_REQUEST", key, "request: field '" + key + "' must be a string");
    }
    return el.getAsString();
  }

  static long optLong(JsonObject o, String key, long dflt) throws AdminException {
    JsonElement el = o.get(key);
    if (el == null || el.isJsonNull()) {
      return dflt;
    }
    try {
      long v = el.getAsJsonPrimitive().getAsBigDecimal().longValueExact();
      if (v <= 0) {
        throw new ArithmeticException("not positive");
      }
      return v;
    } catch (RuntimeException e) {
      throw new AdminException("BAD_REQUEST", key, "request: field '" + key
          + "' must be a positive integer");
    }
  }

  private static TableName tableName(Request req) throws AdminException {
    String name = optString(req.json, "table");
    if (name == null || name.isEmpty()) {
      throw new AdminException("BAD_REQUEST", "table", req.op + ": field 'table' is required");
    }
    try {
      return TableName.valueOf(name);
    } catch (IllegalArgumentException e) {
      throw new AdminException("BAD_REQUEST", "table", req.op + ": table '" + name
          + "' is not a legal HBase table name: " + e.getMessage());
    }
  }

  static byte[] base64(String field, JsonElement el, String table) throws AdminException {
    if (el == null || !el.isJsonPrimitive() || !el.getAsJsonPrimitive().isString()) {
      throw new AdminException("BAD_REQUEST", field, "table '" + table + "': " + field
          + " must be a base64 string");
    }
    try {
      return Base64.getDecoder().decode(el.getAsString());
    } catch (IllegalArgumentException e) {
      throw new AdminException("BAD_REQUEST", field, "table '" + table + "': " + field
          + " is not valid base64: " + e.getMessage());
    }
  }

  private static byte[] splitPoint(Request req, TableName tn) throws AdminException {
    byte[] point = base64("splitPoint", req.json.get("splitPoint"), tn.getNameAsString());
    if (point.length == 0) {
      throw new AdminException("BAD_REQUEST", "splitPoint", "table '" + tn
          + "': splitPoint must not be empty");
    }
    return point;
  }

  // ---------------------------------------------------------------- connection

  private static Configuration configure(Request req) throws AdminException {
    Configuration conf = HBaseConfiguration.create();
    String zk = optString(req.json, "zk");
    if (zk != null && !zk.isBlank()) {
      Set<String> hosts = new LinkedHashSet<>();
      Set<String> ports = new LinkedHashSet<>();
      for (String part : zk.split(",")) {
        String p = part.trim();
        int colon = p.lastIndexOf(':');
        if (p.isEmpty() || colon == 0) {
          throw new AdminException("BAD_REQUEST", "zk", "request: zk '" + zk
              + "' must be host[:port][,host[:port]...]");
        }
        hosts.add(colon > 0 ? p.substring(0, colon) : p);
        if (colon > 0) {
          ports.add(p.substring(colon + 1));
        }
      }
      if (ports.size() > 1) {
        throw new AdminException("BAD_REQUEST", "zk", "request: zk '" + zk
            + "' names different ports; HBase uses one client port for the quorum");
      }
      conf.set(HConstants.ZOOKEEPER_QUORUM, String.join(",", hosts));
      if (!ports.isEmpty()) {
        conf.set(HConstants.ZOOKEEPER_CLIENT_PORT, ports.iterator().next());
      }
    }
    String parent = optString(req.json, "zkParent");
    if (parent != null && !parent.isBlank()) {
      conf.set(HConstants.ZOOKEEPER_ZNODE_PARENT, parent);
    }
    long total = req.remainingMs();
    conf.setLong(HConstants.HBASE_CLIENT_OPERATION_TIMEOUT, total);
    conf.setLong(HConstants.HBASE_RPC_TIMEOUT_KEY, Math.min(total, 20_000));
    conf.setLong("hbase.client.sync.wait.timeout.msec", total);
    conf.setInt(HConstants.HBASE_CLIENT_RETRIES_NUMBER, 6);
    conf.setInt("zookeeper.recovery.retry", 3);
    conf.setInt("zookeeper.recovery.retry.intervalmill", 500);
    conf.setInt("zookeeper.session.timeout", (int) Math.min(total, 30_000));
    JsonElement extra = req.json.get("conf");
    if (extra != null && !extra.isJsonNull()) {
      if (!extra.isJsonObject()) {
        throw new AdminException("BAD_REQUEST", "conf", "request: conf must be an object");
      }
      for (Map.Entry<String, JsonElement> e : extra.getAsJsonObject().entrySet()) {
        if (!e.getValue().isJsonPrimitive()) {
          throw new AdminException("BAD_REQUEST", "conf." + e.getKey(), "request: conf."
              + e.getKey() + " must be a string, number or boolean");
        }
        conf.set(e.getKey(), e.getValue().getAsString());
      }
    }
    return conf;
  }

  // ---------------------------------------------------------------- errors and output

  static AdminException classify(Throwable e, String table) {
    Throwable t = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
    String where = table == null ? "" : "table '" + table + "': ";
    String chain = chainText(t);
    if (t instanceof AdminException) {
      return (AdminException) t;
    }
    if (has(t, TableNotFoundException.class)) {
      return new AdminException("TABLE_NOT_FOUND", "table", where + "table does not exist", t);
    }
    String lower = chain.toLowerCase(Locale.ROOT);
    if (lower.contains("compression") && (lower.contains("failed test")
        || lower.contains("not supported") || lower.contains("codec"))) {
      return new AdminException("UNSUPPORTED_COMPRESSION", "familyAttrs.COMPRESSION", where
          + "the cluster rejected the compression codec: " + chain, t);
    }
    if (t instanceof java.util.concurrent.TimeoutException || lower.contains("timeout")
        || lower.contains("timed out")) {
      return new AdminException("TIMEOUT", null, where + "HBase did not answer in time: " + chain, t);
    }
    if (lower.contains("connection refused") || lower.contains("masternotrunning")
        || lower.contains("pleasehold") || lower.contains("servernotrunningyet")
        || lower.contains("zookeeper") || lower.contains("retriesexhausted")
        || lower.contains("connectionloss") || lower.contains("can not resolve")) {
      return new AdminException("UNAVAILABLE", null, where + "HBase is not reachable: " + chain, t);
    }
    if (t instanceof IOException || t instanceof DoNotRetryIOException) {
      return new AdminException("HBASE_ERROR", null, where + chain, t);
    }
    return new AdminException("INTERNAL", null, where + chain, t);
  }

  private static boolean has(Throwable t, Class<? extends Throwable> cls) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (cls.isInstance(c)) {
        return true;
      }
    }
    return false;
  }

  /** "Type: message <- Cause: message", short enough for one JSON line. */
  static String chainText(Throwable t) {
    StringBuilder sb = new StringBuilder();
    int depth = 0;
    for (Throwable c = t; c != null && depth < 4; c = c.getCause() == c ? null : c.getCause()) {
      if (depth++ > 0) {
        sb.append(" <- ");
      }
      sb.append(describe(c));
    }
    String s = sb.toString();
    return s.length() > 1500 ? s.substring(0, 1500) + "..." : s;
  }

  static String describe(Throwable t) {
    String msg = t.getMessage() == null ? "" : t.getMessage().split("\n", 2)[0];
    return t.getClass().getSimpleName() + (msg.isEmpty() ? "" : ": " + msg);
  }

  static JsonObject error(String op, String table, String code, String field, String msg) {
    JsonObject o = new JsonObject();
    o.addProperty("ok", false);
    o.add("op", op == null ? JsonNull.INSTANCE : new JsonPrimitive(op));
    o.addProperty("code", code);
    o.addProperty("error", msg == null ? code : msg);
    o.add("table", table == null ? JsonNull.INSTANCE : new JsonPrimitive(table));
    o.add("field", field == null ? JsonNull.INSTANCE : new JsonPrimitive(field));
    return o;
  }

  private static void respond(JsonObject o, int code) {
    if (responded.compareAndSet(false, true)) {
      exitCode = code;
      stdout.println(o.toString());
      stdout.flush();
    }
  }

  static void logCause(AdminException e) {
    if (e.getCause() != null) {
      System.err.println("tsingest-table-admin: " + e.code + ": " + e.getMessage());
      e.getCause().printStackTrace(System.err);
    }
  }

  /** Answers TIMEOUT and halts if the whole call outlives its deadline (a hung RPC, a stuck close). */
  private static void startWatchdog(String op, String table, long timeoutMs) {
    Thread w = new Thread(() -> {
      try {
        Thread.sleep(timeoutMs);
      } catch (InterruptedException e) {
        return;
      }
      respond(error(op, table, "TIMEOUT", null, (table == null ? "" : "table '" + table + "': ")
          + op + " did not finish within " + timeoutMs + " ms"), 1);
      System.err.println("tsingest-table-admin: watchdog fired after " + timeoutMs + " ms");
      System.err.flush();
      Runtime.getRuntime().halt(exitCode);
    }, "table-admin-watchdog");
    w.setDaemon(true);
    w.start();
  }

  // ---------------------------------------------------------------- family attributes

  /** Canonical string form of one family attribute, as the tool reports and compares it. */
  static String readFamilyAttr(ColumnFamilyDescriptor cf, String key) {
    switch (key) {
      case "VERSIONS":
        return Integer.toString(cf.getMaxVersions());
      case "MIN_VERSIONS":
        return Integer.toString(cf.getMinVersions());
      case "TTL":
        return cf.getTimeToLive() == HConstants.FOREVER ? "FOREVER"
            : Integer.toString(cf.getTimeToLive());
      case "BLOOMFILTER":
        return cf.getBloomFilterType().name();
      case "COMPRESSION":
        return cf.getCompressionType().name();
      case "DATA_BLOCK_ENCODING":
        return cf.getDataBlockEncoding().name();
      case "BLOCKSIZE":
        return Integer.toString(cf.getBlocksize());
      case "IN_MEMORY":
        return Boolean.toString(cf.isInMemory());
      case "BLOCKCACHE":
        return Boolean.toString(cf.isBlockCacheEnabled());
      case "KEEP_DELETED_CELLS":
        return cf.getKeepDeletedCells().name();
      case "NEW_VERSION_BEHAVIOR":
        return Boolean.toString(cf.isNewVersionBehavior());
      default:
        return cf.getValue(key);
    }
  }

  static JsonObject familyAttrs(ColumnFamilyDescriptor cf) {
    Map<String, String> all = new TreeMap<>();
    for (Map.Entry<Bytes, Bytes> e : cf.getValues().entrySet()) {
      all.put(Bytes.toString(e.getKey().get()), Bytes.toString(e.getValue().get()));
    }
    for (String key : FAMILY_KEYS) {
      all.put(key, readFamilyAttr(cf, key));
    }
    JsonObject o = new JsonObject();
    all.forEach(o::addProperty);
    return o;
  }

  /** Applies one requested attribute to a builder; names the field on a bad value. */
  static void applyFamilyAttr(ColumnFamilyDescriptorBuilder b, String key, JsonElement v,
      String table) throws AdminException {
    String field = "familyAttrs." + key;
    String where = "table '" + table + "': " + field;
    if (v == null || !v.isJsonPrimitive()) {
      throw new AdminException("BAD_REQUEST", field, where + " must be a string, number or boolean");
    }
    String s = v.getAsString().trim();
    try {
      switch (key) {
        case "VERSIONS":
          b.setMaxVersions(positiveInt(s, 1));
          break;
        case "MIN_VERSIONS":
          b.setMinVersions(positiveInt(s, 0));
          break;
        case "TTL":
          b.setTimeToLive(s.equalsIgnoreCase("FOREVER") ? HConstants.FOREVER : positiveInt(s, 1));
          break;
        case "BLOOMFILTER":
          b.setBloomFilterType(BloomType.valueOf(s.toUpperCase(Locale.ROOT)));
          break;
        case "COMPRESSION":
          b.setCompressionType(compression(s));
          break;
        case "DATA_BLOCK_ENCODING":
          b.setDataBlockEncoding(DataBlockEncoding.valueOf(s.toUpperCase(Locale.ROOT)));
          break;
        case "BLOCKSIZE":
          b.setBlocksize(positiveInt(s, 1024));
          break;
        case "IN_MEMORY":
          b.setInMemory(bool(s));
          break;
        case "BLOCKCACHE":
          b.setBlockCacheEnabled(bool(s));
          break;
        case "KEEP_DELETED_CELLS":
          b.setKeepDeletedCells(KeepDeletedCells.valueOf(s.toUpperCase(Locale.ROOT)));
          break;
        case "NEW_VERSION_BEHAVIOR":
          b.setNewVersionBehavior(bool(s));
          break;
        default:
          throw new AdminException("BAD_REQUEST", field, "table '" + table
              + "': unsupported family attribute '" + key + "' (supported: " + FAMILY_KEYS + ")");
      }
    } catch (IllegalArgumentException e) {
      throw new AdminException("BAD_REQUEST", field, where + ": invalid value '" + s + "'"
          + (e.getMessage() == null ? "" : " (" + e.getMessage() + ")"));
    }
  }

  static Compression.Algorithm compression(String s) {
    String u = s.toUpperCase(Locale.ROOT);
    return Compression.Algorithm.valueOf(u.equals("GZIP") ? "GZ" : u);
  }

  private static int positiveInt(String s, int min) {
    int v = Integer.parseInt(s);
    if (v < min) {
      throw new IllegalArgumentException("must be an integer >= " + min);
    }
    return v;
  }

  private static boolean bool(String s) {
    if (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(s);
    }
    throw new IllegalArgumentException("must be true or false");
  }

  /** Fails naming the codec when this JVM (the cluster's jars and native libs) cannot use it. */
  static void checkCompression(Compression.Algorithm algo, String table) throws AdminException {
    if (algo == Compression.Algorithm.NONE) {
      return;
    }
    try {
      CompressionTest.testCompression(algo);
    } catch (Throwable t) {
      throw new AdminException("UNSUPPORTED_COMPRESSION", "familyAttrs.COMPRESSION", "table '"
          + table + "': compression codec " + algo.name() + " is not usable on this cluster: "
          + chainText(t), t);
    }
  }

  // ---------------------------------------------------------------- ensureTable request

  /** Everything ensureTable needs, validated before a connection is opened. */
  static final class EnsureSpec {
    String family;
    byte[][] splits;
    boolean splitsGiven;
    JsonObject familyAttrs = new JsonObject();
    Map<String, String> tableAttrs = new TreeMap<>();
    Set<String> immutable = new LinkedHashSet<>();
    boolean dryRun;

    static EnsureSpec parse(Request req, TableName tn) throws AdminException {
      String table = tn.getNameAsString();
      EnsureSpec s = new EnsureSpec();
      s.family = optString(req.json, "family");
      if (s.family == null || s.family.isEmpty()) {
        throw new AdminException("BAD_REQUEST", "family", "table '" + table
            + "': field 'family' is required");
      }
      try {
        ColumnFamilyDescriptorBuilder.isLegalColumnFamilyName(Bytes.toBytes(s.family));
      } catch (IllegalArgumentException e) {
        throw new AdminException("BAD_REQUEST", "family", "table '" + table + "': family '"
            + s.family + "' is not legal: " + e.getMessage());
      }
      s.splits = parseSplits(req.json.get("splits"), table);
      s.splitsGiven = req.json.has("splits") && !req.json.get("splits").isJsonNull();
      JsonElement fa = req.json.get("familyAttrs");
      if (fa != null && !fa.isJsonNull()) {
        if (!fa.isJsonObject()) {
          throw new AdminException("BAD_REQUEST", "familyAttrs", "table '" + table
              + "': familyAttrs must be an object");
        }
        for (Map.Entry<String, JsonElement> e : fa.getAsJsonObject().entrySet()) {
          String key = e.getKey().toUpperCase(Locale.ROOT);
          // Validate now: a bad value fails before any connection is made.
          applyFamilyAttr(ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes(s.family)), key,
              e.getValue(), table);
          s.familyAttrs.add(key, e.getValue());
        }
      }
      JsonElement ta = req.json.get("tableAttrs");
      if (ta != null && !ta.isJsonNull()) {
        if (!ta.isJsonObject()) {
          throw new AdminException("BAD_REQUEST", "tableAttrs", "table '" + table
              + "': tableAttrs must be an object of strings");
        }
        for (Map.Entry<String, JsonElement> e : ta.getAsJsonObject().entrySet()) {
          if (e.getKey().isEmpty() || !e.getValue().isJsonPrimitive()) {
            throw new AdminException("BAD_REQUEST", "tableAttrs." + e.getKey(), "table '" + table
                + "': tableAttrs." + e.getKey() + " must be a non-empty key with a string value");
          }
          s.tableAttrs.put(e.getKey(), e.getValue().getAsString());
        }
      }
      JsonElement im = req.json.get("immutableTableAttrs");
      if (im != null && !im.isJsonNull()) {
        if (!im.isJsonArray()) {
          throw new AdminException("BAD_REQUEST", "immutableTableAttrs", "table '" + table
              + "': immutableTableAttrs must be an array of strings");
        }
        for (JsonElement e : im.getAsJsonArray()) {
          s.immutable.add(e.getAsString());
        }
      }
      JsonElement dry = req.json.get("dryRun");
      s.dryRun = dry != null && dry.isJsonPrimitive() && dry.getAsBoolean();
      return s;
    }

    private static byte[][] parseSplits(JsonElement el, String table) throws AdminException {
      if (el == null || el.isJsonNull()) {
        return new byte[0][];
      }
      if (!el.isJsonArray()) {
        throw new AdminException("BAD_REQUEST", "splits", "table '" + table
            + "': splits must be an array of base64 strings");
      }
      JsonArray arr = el.getAsJsonArray();
      byte[][] out = new byte[arr.size()][];
      for (int i = 0; i < arr.size(); i++) {
        String field = "splits[" + i + "]";
        out[i] = base64(field, arr.get(i), table);
        if (out[i].length == 0) {
          throw new AdminException("BAD_REQUEST", field, "table '" + table + "': " + field
              + " is empty; the empty key is the table start, not a split point");
        }
        if (i > 0 && Bytes.compareTo(out[i - 1], out[i]) >= 0) {
          throw new AdminException("BAD_REQUEST", field, "table '" + table + "': " + field
              + " is not greater than splits[" + (i - 1) + "]; split points must be strictly"
              + " increasing (unsigned byte order)");
        }
      }
      return out;
    }
  }

  static List<String> regionStartKeys(List<RegionInfo> regions) {
    List<String> keys = new ArrayList<>();
    for (RegionInfo r : regions) {
      if (r.getStartKey().length > 0) {
        keys.add(Bytes.toHex(r.getStartKey()));
      }
    }
    keys.sort(null);
    return keys;
  }

  /** The region locations of a table, sorted by start key, read fresh from hbase:meta. */
  static List<HRegionLocation> locations(Connection conn, TableName tn) throws IOException {
    try (RegionLocator locator = conn.getRegionLocator(tn)) {
      List<HRegionLocation> locs = new ArrayList<>(locator.getAllRegionLocations());
      locs.sort((a, b) -> Bytes.compareTo(a.getRegion().getStartKey(), b.getRegion().getStartKey()));
      return locs;
    }
  }

  static String server(ServerName sn) {
    return sn == null ? null : sn.getHostname() + ":" + sn.getPort();
  }

  /** The ping response body. */
  static JsonObject pingResult(ClusterMetrics m) {
    JsonObject o = new JsonObject();
    o.addProperty("clusterId", m.getClusterId());
    o.addProperty("hbaseVersion", m.getHBaseVersion());
    o.addProperty("master", m.getMasterName() == null ? null : m.getMasterName().toString());
    JsonArray live = new JsonArray();
    for (ServerName sn : m.getLiveServerMetrics().keySet()) {
      live.add(sn.toString());
    }
    o.add("liveServers", live);
    return o;
  }

  static EnumSet<ClusterMetrics.Option> pingOptions() {
    return EnumSet.of(ClusterMetrics.Option.CLUSTER_ID, ClusterMetrics.Option.HBASE_VERSION,
        ClusterMetrics.Option.MASTER, ClusterMetrics.Option.LIVE_SERVERS);
  }

  static void sleep(long ms) throws AdminException {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AdminException("INTERNAL", null, "interrupted");
    }
  }

  static boolean isTableNotEnabled(Throwable t) {
    return has(t, TableNotEnabledException.class);
  }

  static boolean isTableExists(Throwable t) {
    return has(t, TableExistsException.class);
  }

  // ---------------------------------------------------------------- operations

  /** The five operations; each returns the response body (ok/op are added by main). */
  static final class Ops {
    private Ops() {}

    static JsonObject ensureTable(Connection conn, Admin admin, TableName tn, EnsureSpec spec,
        Request req) throws Exception {
      String table = tn.getNameAsString();
      byte[] fam = Bytes.toBytes(spec.family);
      boolean created = false;
      JsonArray diff = new JsonArray();
      if (!admin.tableExists(tn)) {
        ColumnFamilyDescriptorBuilder cfb = ColumnFamilyDescriptorBuilder.newBuilder(fam);
        for (Map.Entry<String, JsonElement> e : spec.familyAttrs.entrySet()) {
          applyFamilyAttr(cfb, e.getKey(), e.getValue(), table);
        }
        ColumnFamilyDescriptor cf = cfb.build();
        if (spec.dryRun) {
          JsonObject o = new JsonObject();
          o.addProperty("table", table);
          o.addProperty("created", false);
          o.addProperty("exists", false);
          o.addProperty("dryRun", true);
          o.add("diff", diff);
          return o;
        }
        checkCompression(cf.getCompressionType(), table);
        TableDescriptorBuilder tb = TableDescriptorBuilder.newBuilder(tn).setColumnFamily(cf);
        spec.tableAttrs.forEach(tb::setValue);
        try {
          if (spec.splits.length == 0) {
            admin.createTable(tb.build());
          } else {
            admin.createTable(tb.build(), spec.splits);
          }
          created = true;
        } catch (IOException e) {
          if (!isTableExists(e)) {
            throw e;
          }
          // Created concurrently by someone else: fall through and reconcile like any existing table.
        }
        if (created) {
          waitRegionsOnline(conn, admin, tn, spec.splits.length + 1, req);
        }
      }
      if (!created) {
        diff = reconcile(admin, tn, spec, req);
      }
      TableDescriptor now = admin.getDescriptor(tn);
      JsonObject o = new JsonObject();
      o.addProperty("table", table);
      o.addProperty("created", created);
      o.addProperty("exists", true);
      o.addProperty("dryRun", spec.dryRun);
      o.add("diff", diff);
      o.add("tableAttrs", tableAttrs(now));
      ColumnFamilyDescriptor cf = now.getColumnFamily(fam);
      o.add("familyAttrs", cf == null ? new JsonObject() : familyAttrs(cf));
      List<RegionInfo> regions = admin.getRegions(tn);
      o.addProperty("regionCount", regions.size());
      List<String> wanted = new ArrayList<>();
      for (byte[] s : spec.splits) {
        wanted.add(Bytes.toHex(s));
      }
      // Whether the live region boundaries are exactly the requested split points (null: none given).
      o.add("splitsMatch", spec.splitsGiven
          ? new JsonPrimitive(wanted.equals(regionStartKeys(regions))) : JsonNull.INSTANCE);
      return o;
    }

    /** Brings an existing table's family and table attributes to the request; never its splits. */
    private static JsonArray reconcile(Admin admin, TableName tn, EnsureSpec spec, Request req)
        throws Exception {
      String table = tn.getNameAsString();
      byte[] fam = Bytes.toBytes(spec.family);
      TableDescriptor current = admin.getDescriptor(tn);
      JsonArray diff = new JsonArray();
      for (String key : spec.immutable) {
        String want = spec.tableAttrs.get(key);
        String have = current.getValue(key);
        if (want != null && have != null && !have.equals(want)) {
          throw new AdminException("IMMUTABLE_ATTR_CONFLICT", "tableAttrs." + key, "table '"
              + table + "': tableAttrs." + key + " is '" + have + "' on the existing table but the"
              + " request says '" + want + "'; it cannot change on a table that holds data");
        }
      }
      TableDescriptorBuilder tb = TableDescriptorBuilder.newBuilder(current);
      for (Map.Entry<String, String> e : spec.tableAttrs.entrySet()) {
        String have = current.getValue(e.getKey());
        if (!e.getValue().equals(have)) {
          diff.add(change("table", e.getKey(), have, e.getValue()));
          tb.setValue(e.getKey(), e.getValue());
        }
      }
      ColumnFamilyDescriptor curCf = current.getColumnFamily(fam);
      ColumnFamilyDescriptorBuilder cfb = curCf == null
          ? ColumnFamilyDescriptorBuilder.newBuilder(fam)
          : ColumnFamilyDescriptorBuilder.newBuilder(curCf);
      for (Map.Entry<String, JsonElement> e : spec.familyAttrs.entrySet()) {
        applyFamilyAttr(cfb, e.getKey(), e.getValue(), table);
      }
      ColumnFamilyDescriptor wantCf = cfb.build();
      boolean compressionChanges = false;
      if (curCf == null) {
        diff.add(change("family", "NAME", null, spec.family));
        compressionChanges = true;
      }
      for (String key : spec.familyAttrs.keySet()) {
        String have = curCf == null ? null : readFamilyAttr(curCf, key);
        String want = readFamilyAttr(wantCf, key);
        if (!want.equals(have)) {
          diff.add(change("family", key, have, want));
          compressionChanges |= key.equals("COMPRESSION");
        }
      }
      if (diff.size() == 0 || spec.dryRun) {
        return diff;
      }
      if (compressionChanges) {
        checkCompression(wantCf.getCompressionType(), table);
      }
      if (curCf == null) {
        tb.setColumnFamily(wantCf);
      } else {
        tb.modifyColumnFamily(wantCf);
      }
      // Online schema change (2.x): no disable; the call waits for the regions to reopen.
      admin.modifyTable(tb.build());
      return diff;
    }

    private static JsonObject change(String scope, String key, String from, String to) {
      JsonObject c = new JsonObject();
      c.addProperty("scope", scope);
      c.addProperty("key", key);
      c.add("from", from == null ? JsonNull.INSTANCE : new JsonPrimitive(from));
      c.addProperty("to", to);
      return c;
    }

    static JsonObject tableAttrs(TableDescriptor d) {
      Map<String, String> all = new TreeMap<>();
      for (Map.Entry<Bytes, Bytes> e : d.getValues().entrySet()) {
        all.put(Bytes.toString(e.getKey().get()), Bytes.toString(e.getValue().get()));
      }
      JsonObject o = new JsonObject();
      all.forEach(o::addProperty);
      return o;
    }

    /** Waits until the table has `expected` regions (or more), each with a server, and is available. */
    private static void waitRegionsOnline(Connection conn, Admin admin, TableName tn, int expected,
        Request req) throws Exception {
      int online = 0;
      int total = 0;
      while (req.remainingMs() > 0) {
        List<HRegionLocation> locs = locations(conn, tn);
        total = locs.size();
        online = 0;
        for (HRegionLocation l : locs) {
          if (l.getServerName() != null) {
            online++;
          }
        }
        if (total >= expected && online == total && admin.isTableAvailable(tn)) {
          return;
        }
        sleep(Math.min(200, req.remainingMs()));
      }
      throw new AdminException("TIMEOUT", null, "table '" + tn + "': " + online + " of " + expected
          + " regions online (" + total + " known) when the deadline passed");
    }

    static JsonObject describe(Connection conn, Admin admin, TableName tn) throws Exception {
      JsonObject o = new JsonObject();
      o.addProperty("table", tn.getNameAsString());
      if (!admin.tableExists(tn)) {
        o.addProperty("exists", false);
        return o;
      }
      TableDescriptor d = admin.getDescriptor(tn);
      o.addProperty("exists", true);
      o.addProperty("enabled", admin.isTableEnabled(tn));
      o.add("tableAttrs", tableAttrs(d));
      JsonArray fams = new JsonArray();
      for (ColumnFamilyDescriptor cf : d.getColumnFamilies()) {
        JsonObject f = new JsonObject();
        f.addProperty("name", cf.getNameAsString());
        f.add("attrs", familyAttrs(cf));
        fams.add(f);
      }
      o.add("families", fams);
      JsonArray regions = new JsonArray();
      Base64.Encoder b64 = Base64.getEncoder();
      for (HRegionLocation l : locations(conn, tn)) {
        RegionInfo r = l.getRegion();
        JsonObject j = new JsonObject();
        j.addProperty("startKey", b64.encodeToString(r.getStartKey()));
        j.addProperty("endKey", b64.encodeToString(r.getEndKey()));
        j.addProperty("name", r.getRegionNameAsString());
        j.addProperty("encodedName", r.getEncodedName());
        j.add("server", l.getServerName() == null ? JsonNull.INSTANCE
            : new JsonPrimitive(server(l.getServerName())));
        regions.add(j);
      }
      o.add("regions", regions);
      return o;
    }

    static JsonObject drop(Admin admin, TableName tn) throws Exception {
      JsonObject o = new JsonObject();
      o.addProperty("table", tn.getNameAsString());
      if (!admin.tableExists(tn)) {
        o.addProperty("dropped", false);
        return o;
      }
      try {
        if (admin.isTableEnabled(tn)) {
          admin.disableTable(tn);
        }
      } catch (IOException e) {
        if (!isTableNotEnabled(e)) {
          throw e;
        }
      }
      admin.deleteTable(tn);
      o.addProperty("dropped", true);
      return o;
    }

    /**
     * Flushes the table's memstores, runs a major compaction and waits until no compaction is
     * running or queued for it (TIMEOUT when the request's deadline passes first): every region
     * then has one store file per family, as a settled table does.
     */
    static JsonObject compact(Admin admin, TableName tn, Request req) throws Exception {
      String table = tn.getNameAsString();
      if (!admin.tableExists(tn)) {
        throw new AdminException("TABLE_NOT_FOUND", "table", "compact: table '" + table
            + "' does not exist");
      }
      long t0 = System.nanoTime();
      admin.flush(tn);
      admin.majorCompact(tn);
      // The request is queued asynchronously: wait until the state is seen as started, then NONE.
      boolean seen = false;
      long quietSince = System.nanoTime();
      while (true) {
        if (req.remainingMs() <= 0) {
          throw new AdminException("TIMEOUT", null, "compact: table '" + table
              + "' still compacting at the deadline");
        }
        boolean busy = admin.getCompactionState(tn) != org.apache.hadoop.hbase.client.CompactionState.NONE;
        seen |= busy;
        if (busy) {
          quietSince = System.nanoTime();
        } else if (seen || System.nanoTime() - quietSince > TimeUnit.SECONDS.toNanos(3)) {
          break;
        }
        Thread.sleep(200);
      }
      JsonObject o = new JsonObject();
      o.addProperty("table", table);
      o.addProperty("compacted", true);
      o.addProperty("ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
      return o;
    }

    static JsonObject split(Connection conn, Admin admin, TableName tn, byte[] point, Request req)
        throws Exception {
      String table = tn.getNameAsString();
      if (!admin.tableExists(tn)) {
        throw new AdminException("TABLE_NOT_FOUND", "table", "split: table '" + table
            + "' does not exist");
      }
      JsonObject o = new JsonObject();
      o.addProperty("table", table);
      HRegionLocation loc;
      try (RegionLocator locator = conn.getRegionLocator(tn)) {
        loc = locator.getRegionLocation(point, true);
      }
      RegionInfo region = loc.getRegion();
      if (Bytes.equals(region.getStartKey(), point)) {
        o.addProperty("split", false);
        o.addProperty("reason", "splitPoint is already a region boundary");
        o.addProperty("regionCount", admin.getRegions(tn).size());
        return o;
      }
      try {
        admin.splitRegionAsync(region.getRegionName(), point)
            .get(Math.max(1, req.remainingMs()), TimeUnit.MILLISECONDS);
      } catch (ExecutionException | IOException e) {
        Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        AdminException c = classify(cause, table);
        if (!c.code.equals("HBASE_ERROR")) {
          throw c;
        }
        String text = chainText(cause);
        String hint = text.contains("NOT splittable")
            ? " (the region's split policy forbids splits: the cluster's"
                + " hbase.regionserver.region.split.policy or the table's SPLIT_POLICY; a table"
                + " created with tableAttrs SPLIT_POLICY="
                + "org.apache.hadoop.hbase.regionserver.ConstantSizeRegionSplitPolicy can be split)"
            : "";
        throw new AdminException("SPLIT_FAILED", "splitPoint", "table '" + table + "': split of "
            + region.getRegionNameAsString() + " at " + Bytes.toStringBinary(point) + " failed: "
            + text + hint, cause);
      }
      // The procedure is done when the daughters are open; confirm through hbase:meta.
      while (true) {
        List<HRegionLocation> locs = locations(conn, tn);
        boolean boundary = false;
        boolean allOnline = true;
        for (HRegionLocation l : locs) {
          boundary |= Bytes.equals(l.getRegion().getStartKey(), point);
          allOnline &= l.getServerName() != null;
        }
        if (boundary && allOnline) {
          o.addProperty("split", true);
          o.addProperty("regionCount", locs.size());
          return o;
        }
        if (req.remainingMs() == 0) {
          throw new AdminException("TIMEOUT", "splitPoint", "table '" + table + "': split at "
              + Bytes.toStringBinary(point) + " not visible in hbase:meta before the deadline");
        }
        sleep(Math.min(200, req.remainingMs()));
      }
    }

    static JsonObject ping(Admin admin) throws Exception {
      return pingResult(admin.getClusterMetrics(pingOptions()));
    }
  }
}

/*
 * Session: many requests through one JVM and one HBase connection (TableAdmin's one-shot protocol
 * otherwise pays a JVM start and a connection per request, ~2–4 s each). The first stdin line is
 * {"op":"session"}; the tool answers {"ok":true,"op":"session"}, then reads one JSON request per line
 * and writes one response line each (the one-shot responses), until stdin ends. Each request keeps its
 * own "timeoutMs": past it the tool answers TIMEOUT for that request and exits (the session is over;
 * the caller starts another). A failed request drops the cached connection, so the next one connects
 * afresh (a restarted HBase, a changed "zk").
 */
package tsingest.admin;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;

final class Session {
  /** Failures after which the cached connection is not trusted for the next request. */
  private static final Set<String> DROP_CONNECTION_ON = Set.of("UNAVAILABLE", "HBASE_ERROR", "INTERNAL", "TIMEOUT");

  private final PrintStream out;
  private Connection conn;
  private String connKey;

  private Session(PrintStream out) {
    this.out = out;
  }

  /** True when the first stdin line asks for a session. */
  static boolean opens(String firstLine) {
    try {
      return "session".equals(TableAdmin.optString(TableAdmin.parseRequest(firstLine), "op"));
    } catch (TableAdmin.AdminException e) {
      return false;
    }
  }

  static void serve(InputStream in, PrintStream out) {
    Session s = new Session(out);
    ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor((r) -> {
      Thread t = new Thread(r, "table-admin-session-watchdog");
      t.setDaemon(true);
      return t;
    });
    JsonObject hello = new JsonObject();
    hello.addProperty("ok", true);
    hello.addProperty("op", "session");
    s.send(hello);
    try {
      String line;
      while ((line = TableAdmin.readLine(in)) != null) {
        if (!line.isBlank()) {
          s.handle(line, watchdog);
        }
      }
    } catch (IOException | TableAdmin.AdminException e) {
      s.send(TableAdmin.error(null, null, "BAD_REQUEST", null, "request: " + e.getMessage()));
    } finally {
      s.dropConnection();
      watchdog.shutdownNow();
    }
  }

  private void handle(String line, ScheduledExecutorService watchdog) {
    String op = null;
    String table = null;
    ScheduledFuture<?> timer = null;
    try {
      JsonObject json = TableAdmin.parseRequest(line);
      op = TableAdmin.optString(json, "op");
      if (op == null) {
        throw new TableAdmin.AdminException("BAD_REQUEST", "op", "request: field 'op' is required");
      }
      long timeoutMs = TableAdmin.optLong(json, "timeoutMs", TableAdmin.DEFAULT_TIMEOUT_MS);
      TableAdmin.Request req = new TableAdmin.Request(json, op, timeoutMs);
      table = req.table;
      timer = watchdog.schedule(timeout(op, table, timeoutMs), timeoutMs, TimeUnit.MILLISECONDS);
      JsonObject result = TableAdmin.run(req, this);
      result.addProperty("ok", true);
      result.addProperty("op", op);
      send(result);
    } catch (TableAdmin.AdminException e) {
      if (DROP_CONNECTION_ON.contains(e.code)) {
        dropConnection();
      }
      send(TableAdmin.error(op, table, e.code, e.field, e.getMessage()));
      TableAdmin.logCause(e);
    } catch (Throwable t) {
      dropConnection();
      send(TableAdmin.error(op, table, "INTERNAL", null, TableAdmin.describe(t)));
      t.printStackTrace(System.err);
    } finally {
      if (timer != null) {
        timer.cancel(false);
      }
    }
  }

  /** The watchdog's answer for a request that outlived its deadline: TIMEOUT, then the JVM ends. */
  private Runnable timeout(String op, String table, long timeoutMs) {
    return () -> {
      send(TableAdmin.error(op, table, "TIMEOUT", null, (table == null ? "" : "table '" + table + "': ")
          + op + " did not finish within " + timeoutMs + " ms"));
      System.err.println("tsingest-table-admin: session watchdog fired after " + timeoutMs + " ms");
      System.err.flush();
      Runtime.getRuntime().halt(1);
    };
  }

  /** The cached connection when the request names the same cluster as the last one, else a new one. */
  Connection connection(TableAdmin.Request req, Configuration conf) throws IOException {
    String key = String.valueOf(req.json.get("zk")) + '|' + req.json.get("zkParent") + '|' + req.json.get("conf");
    if (conn != null && !conn.isClosed() && key.equals(connKey)) {
      return conn;
    }
    dropConnection();
    conn = ConnectionFactory.createConnection(conf);
    connKey = key;
    return conn;
  }

  private void dropConnection() {
    if (conn != null) {
      TableAdmin.closeQuietly(conn);
      conn = null;
      connKey = null;
    }
  }

  private synchronized void send(JsonObject o) {
    out.println(o.toString());
    out.flush();
  }
}

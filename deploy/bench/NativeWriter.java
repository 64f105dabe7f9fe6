// The benchmark's native anchor: HBase's own Java client (BufferedMutator, no REST) writing exactly
// the rows the service writes. scripts/lib/bench/native.ts dumps those rows (keys, columns, values,
// timestamps built by the service's own code) to a file; this program streams it into one
// BufferedMutator (flushing from THREADS threads). The time includes reading the file (sequential,
// a small share), not the JVM and connection start-up.
//
//   java -cp <conf>:<hbase jars>:<classes> NativeWriter TABLE ROWS_FILE THREADS
// File: repeated records [u16 keyLen][key][u16 cells]{[u16 colLen][family:qualifier][i64 ts|-1][u32 valLen][value]}.
// Output: one JSON line {"rows":N,"cells":C,"seconds":S}.
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.FileInputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;

public final class NativeWriter {
  private NativeWriter() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: NativeWriter TABLE ROWS_FILE THREADS");
      System.exit(2);
    }
    TableName table = TableName.valueOf(args[0]);
    int threads = Integer.parseInt(args[2]);
    Configuration conf = HBaseConfiguration.create();
    long rows = 0;
    long cells = 0;
    long t0;
    // Streamed: the file is read while writing (3 million Puts do not fit a small heap). The
    // BufferedMutator is thread-safe and flushes from its own pool of `threads` threads.
    try (Connection connection = ConnectionFactory.createConnection(conf)) {
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      BufferedMutatorParams params = new BufferedMutatorParams(table).writeBufferSize(4L << 20).pool(pool)
          .maxKeyValueSize(-1);
      t0 = System.nanoTime();
      try (BufferedMutator mutator = connection.getBufferedMutator(params);
           DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(args[1]), 1 << 20))) {
        List<Put> batch = new ArrayList<>(1000);
        for (;;) {
          int keyLen;
          try {
            keyLen = in.readUnsignedShort();
          } catch (EOFException end) {
            break;
          }
          byte[] key = new byte[keyLen];
          in.readFully(key);
          Put put = new Put(key);
          int n = in.readUnsignedShort();
          for (int i = 0; i < n; i++) {
            byte[] col = new byte[in.readUnsignedShort()];
            in.readFully(col);
            long ts = in.readLong();
            byte[] value = new byte[in.readInt()];
            in.readFully(value);
            int colon = indexOf(col, (byte) ':');
            byte[] family = java.util.Arrays.copyOfRange(col, 0, colon);
            byte[] qualifier = java.util.Arrays.copyOfRange(col, colon + 1, col.length);
            if (ts >= 0) put.addColumn(family, qualifier, ts, value);
            else put.addColumn(family, qualifier, value);
            cells++;
          }
          batch.add(put);
          rows++;
          if (batch.size() == 1000) {
            mutator.mutate(batch);
            batch = new ArrayList<>(1000);
          }
        }
        if (!batch.isEmpty()) mutator.mutate(batch);
        mutator.flush();
      }
      pool.shutdown();
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    System.out.println("{\"rows\":" + rows + ",\"cells\":" + cells + ",\"seconds\":" + seconds + "}");
  }

  private static int indexOf(byte[] a, byte b) {
    for (int i = 0; i < a.length; i++) if (a[i] == b) return i;
    throw new IllegalArgumentException("column without ':'");
  }
}

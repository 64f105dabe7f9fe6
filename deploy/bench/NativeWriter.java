// The benchmark's native anchor: HBase's own Java client (BufferedMutator, no REST) writing exactly
// the rows the service writes. scripts/lib/bench-native.ts dumps those rows (keys, columns, values,
// timestamps built by the service's own code) to a file; this program reads it into memory first,
// then times only the writes.
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
import java.util.concurrent.Future;
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
    List<Put> puts = new ArrayList<>();
    long cells = 0;
    try (DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(args[1]), 1 << 20))) {
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
        puts.add(put);
      }
    }
    Configuration conf = HBaseConfiguration.create();
    long t0 = System.nanoTime();
    try (Connection connection = ConnectionFactory.createConnection(conf)) {
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<?>> done = new ArrayList<>();
      int per = (puts.size() + threads - 1) / threads;
      for (int t = 0; t < threads; t++) {
        List<Put> slice = puts.subList(Math.min(puts.size(), t * per), Math.min(puts.size(), (t + 1) * per));
        done.add(pool.submit(() -> {
          BufferedMutatorParams params = new BufferedMutatorParams(table).writeBufferSize(4L << 20);
          try (BufferedMutator mutator = connection.getBufferedMutator(params)) {
            mutator.mutate(slice);
            mutator.flush();
          }
          return null;
        }));
      }
      for (Future<?> f : done) f.get();
      pool.shutdown();
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    System.out.println("{\"rows\":" + puts.size() + ",\"cells\":" + cells + ",\"seconds\":" + seconds + "}");
  }

  private static int indexOf(byte[] a, byte b) {
    for (int i = 0; i < a.length; i++) if (a[i] == b) return i;
    throw new IllegalArgumentException("column without ':'");
  }
}

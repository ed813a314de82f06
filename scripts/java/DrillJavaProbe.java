// The unchanged Apache RocketMQ 4.x Java producer in a drill (scripts/drill.sh --java DIR): sync
// sends of 1 KiB with the client's defaults (sendMsgTimeout 3000 ms, retryTimesWhenSendFailed 2,
// pollNameServerInterval 30000 ms), one log line per answer, so the drill can tell when the
// unchanged client wrote to a group again after a fault:
//   S <epoch ms> <brokerName> <SendStatus> <rt ms>
//   E <epoch ms> <exception class> <message> <rt ms>
// Usage: java -cp "<reference>/lib/*:<dir>" DrillJavaProbe NAMESRV TOPIC SECONDS THREADS PAUSE_MS LOG
import java.io.*;
import java.util.*;
import java.util.concurrent.atomic.*;
import org.apache.rocketmq.client.producer.*;
import org.apache.rocketmq.common.message.Message;

public class DrillJavaProbe {
  public static void main(String[] a) throws Exception {
    String ns = a[0], topic = a[1];
    long secs = Long.parseLong(a[2]);
    int threads = Integer.parseInt(a[3]);
    long pause = Long.parseLong(a[4]);
    PrintWriter log = new PrintWriter(new BufferedWriter(new FileWriter(a[5])), false);
    DefaultMQProducer producer = new DefaultMQProducer("drill_java_probe_pg");
    producer.setNamesrvAddr(ns);
    producer.start();
    byte[] body = new byte[1024];
    long end = System.currentTimeMillis() + secs * 1000L;
    AtomicLong ok = new AtomicLong(), failed = new AtomicLong();
    List<Thread> workers = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      Thread t = new Thread(() -> {
        while (System.currentTimeMillis() < end) {
          long t0 = System.currentTimeMillis();
          String line;
          try {
            SendResult r = producer.send(new Message(topic, "java", body));
            long now = System.currentTimeMillis();
            line = "S " + now + " " + r.getMessageQueue().getBrokerName() + " " + r.getSendStatus() + " " + (now - t0);
            ok.incrementAndGet();
          } catch (Exception e) {
            long now = System.currentTimeMillis();
            String m = String.valueOf(e.getMessage()).replace('\n', ' ');
            int cut = m.indexOf("See http");
            if (cut > 0) m = m.substring(0, cut);
            line = "E " + now + " " + e.getClass().getSimpleName() + " " + m.trim() + " " + (now - t0);
            failed.incrementAndGet();
          }
          synchronized (log) { log.println(line); }
          if (pause > 0) {
            try { Thread.sleep(pause); } catch (InterruptedException e) { return; }
          }
        }
      });
      t.start();
      workers.add(t);
    }
    for (Thread t : workers) t.join();
    producer.shutdown();
    synchronized (log) { log.flush(); log.close(); }
    System.out.println("java probe: " + ok.get() + " answered, " + failed.get() + " exceptions");
  }
}

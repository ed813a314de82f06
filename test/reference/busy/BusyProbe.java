// Manual measurement (not built by CMake): how the Java 4.9.8 producer reacts to a broker's
// fast-failure answers. Sync sends, one per line of output: index, elapsed ms, broker that stored it
// or the exception. Usage (from /work/anchors/java):
//   javac -cp 'lib/*' -d /tmp/busyprobe BusyProbe.java
//   java -cp "lib/*:/tmp/busyprobe" BusyProbe <namesrv> <topic> <count> [retryBusy] [latencyFault]
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;

public class BusyProbe {
    public static void main(String[] args) throws Exception {
        String ns = args[0], topic = args[1];
        int count = Integer.parseInt(args[2]);
        boolean retryBusy = args.length > 3 && args[3].equals("retryBusy");
        boolean latencyFault = args.length > 4 && args[4].equals("latencyFault");
        DefaultMQProducer p = new DefaultMQProducer("BusyProbeGroup");
        p.setNamesrvAddr(ns);
        p.setSendLatencyFaultEnable(latencyFault);
        if (retryBusy) p.addRetryResponseCode(2);  // SYSTEM_BUSY
        p.start();
        for (int i = 0; i < 4; i++) {  // warm-up (route, connections, JIT): not counted
            try { p.send(new Message(topic, "warm-up".getBytes())); } catch (Exception e) { }
        }
        System.out.println("warm-up done");
        int ok = 0, busy = 0, timeouts = 0, other = 0;
        for (int i = 0; i < count; i++) {
            long t0 = System.currentTimeMillis();
            try {
                SendResult r = p.send(new Message(topic, ("probe-" + i).getBytes()));
                ok++;
                System.out.printf("%d %dms %s %s%n", i, System.currentTimeMillis() - t0, r.getSendStatus(),
                    r.getMessageQueue().getBrokerName());
            } catch (Exception e) {
                Throwable c = e;
                while (c.getCause() != null && !(c instanceof MQBrokerException)) c = c.getCause();
                if (c instanceof MQBrokerException && ((MQBrokerException) c).getResponseCode() == 2) busy++;
                else if (String.valueOf(e).contains("timeout")) timeouts++;
                else other++;
                System.out.printf("%d %dms %s%n", i, System.currentTimeMillis() - t0,
                    String.valueOf(c).replace('\n', ' '));
            }
        }
        System.out.printf("ok=%d busy=%d timeouts=%d other=%d%n", ok, busy, timeouts, other);
        p.shutdown();
    }
}

// Our own drill program (not Apache code): Apache RocketMQ 4.9.8's Java client with
// AclClientRPCHook against a broker with aclEnable = true. Prints one line per step; exit 0 when
// every step behaved as expected. Args: NAMESRV TOPIC ADMIN_AK ADMIN_SK SUB_AK SUB_SK
import java.util.*;
import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.RPCHook;

public class AclJavaDrill {
  static int failures = 0;
  static void expect(boolean ok, String what) {
    System.out.println((ok ? "OK   " : "FAIL ") + what);
    if (!ok) failures++;
  }
  static DefaultMQProducer producer(String ns, String group, RPCHook hook) throws Exception {
    DefaultMQProducer p = hook == null ? new DefaultMQProducer(group) : new DefaultMQProducer(group, hook);
    p.setNamesrvAddr(ns);
    p.setInstanceName(group);
    p.setRetryTimesWhenSendFailed(0);
    p.start();
    return p;
  }
  static String send(DefaultMQProducer p, String topic, String body) {
    try {
      SendResult r = p.send(new Message(topic, "TagA", body.getBytes("UTF-8")));
      return r.getSendStatus().toString();
    } catch (Exception e) {
      StringBuilder sb = new StringBuilder();  // the broker's answer is in the cause chain
      for (Throwable t = e; t != null; t = t.getCause()) sb.append(t.getCause() == null ? t.toString() : "");
      return sb.toString();
    }
  }
  public static void main(String[] a) throws Exception {
    String ns = a[0], topic = a[1];
    RPCHook admin = new AclClientRPCHook(new SessionCredentials(a[2], a[3]));
    RPCHook sub = new AclClientRPCHook(new SessionCredentials(a[4], a[5]));
    DefaultMQProducer signed = producer(ns, "PG_ACL_SIGNED", admin);
    int sent = 0;
    for (int i = 0; i < 5; i++) if ("SEND_OK".equals(send(signed, topic, "java-acl-" + i))) sent++;
    expect(sent == 5, "signed producer (admin account): " + sent + "/5 SEND_OK");
    DefaultMQProducer anon = producer(ns, "PG_ACL_ANON", null);
    String r1 = send(anon, topic, "unsigned");
    System.out.println("     unsigned producer: " + r1);
    expect(r1.contains("No accessKey is configured"), "unsigned producer refused (No accessKey is configured)");
    DefaultMQProducer subP = producer(ns, "PG_ACL_SUB", sub);
    String r2 = send(subP, topic, "no PUB");
    System.out.println("     SUB-only producer: " + r2);
    expect(r2.contains("No default permission for topic:" + topic), "SUB-only producer refused (No default permission)");
    DefaultLitePullConsumer c = new DefaultLitePullConsumer("CG_ACL_JAVA", sub);
    c.setNamesrvAddr(ns);
    c.setInstanceName("CG_ACL_JAVA");
    c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
    c.subscribe(topic, "*");
    c.start();
    Set<String> got = new TreeSet<>();
    long deadline = System.currentTimeMillis() + 30000;
    while (got.size() < 5 && System.currentTimeMillis() < deadline)
      for (MessageExt m : c.poll(1000)) got.add(new String(m.getBody(), "UTF-8"));
    expect(got.size() == 5, "SUB-only lite pull consumer got " + got.size() + "/5: " + got);
    c.shutdown();
    signed.shutdown();
    anon.shutdown();
    subP.shutdown();
    System.out.println(failures == 0 ? "ALL OK" : failures + " FAILED");
    System.exit(failures == 0 ? 0 : 1);
  }
}

// Kafka's own Java Admin client reading and setting client quotas: the tests' reader
// independent of reconciler's (tests/cluster/test_client_quotas.py). Run from source with the
// brokers' jars on the class path (kafka-configs' ConfigCommand is not in every release's
// broker jars):
//   java -cp 'LIBS/*' ClientQuotas.java describe BOOTSTRAP
//       one line per entity: `user=NAME,client-id=<default> key=value key=value`
//   java -cp 'LIBS/*' ClientQuotas.java alter BOOTSTRAP TYPE NAME KEY VALUE
import java.util.*;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.common.quota.*;

public class ClientQuotas {
    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[1]);
        try (Admin admin = Admin.create(props)) {
            if (args[0].equals("describe")) {
                Map<ClientQuotaEntity, Map<String, Double>> found =
                    admin.describeClientQuotas(ClientQuotaFilter.all()).entities().get();
                for (Map.Entry<ClientQuotaEntity, Map<String, Double>> e : found.entrySet()) {
                    List<String> parts = new ArrayList<>();
                    for (String type : List.of(ClientQuotaEntity.USER, ClientQuotaEntity.CLIENT_ID)) {
                        if (e.getKey().entries().containsKey(type)) {
                            String name = e.getKey().entries().get(type);
                            parts.add(type + "=" + (name == null ? "<default>" : name));
                        }
                    }
                    StringBuilder line = new StringBuilder(String.join(",", parts));
                    new TreeMap<>(e.getValue()).forEach((k, v) -> line.append(" ").append(k).append("=").append(v));
                    System.out.println(line);
                }
            } else {
                ClientQuotaEntity entity = new ClientQuotaEntity(Map.of(args[2], args[3]));
                ClientQuotaAlteration.Op op = new ClientQuotaAlteration.Op(args[4], Double.parseDouble(args[5]));
                admin.alterClientQuotas(List.of(new ClientQuotaAlteration(entity, List.of(op)))).all().get();
            }
        }
    }
}

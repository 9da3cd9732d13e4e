package io.qbeast.trino.security;

import com.google.inject.Binder;
import com.google.inject.Module;
import io.airlift.configuration.AbstractConfigurationAwareModule;
import io.qbeast.trino.security.QbeastSecurityConfig.QbeastSecurity;
import io.trino.plugin.base.security.AllowAllSecurityModule;
import io.trino.plugin.base.security.ConnectorAccessControlModule;
import io.trino.plugin.base.security.FileBasedAccessControlModule;
import io.trino.plugin.base.security.ReadOnlySecurityModule;

import static io.airlift.configuration.ConditionalModule.conditionalModule;
import static io.qbeast.trino.security.QbeastSecurityConfig.QbeastSecurity.ALLOW_ALL;
import static io.qbeast.trino.security.QbeastSecurityConfig.QbeastSecurity.FILE;
import static io.qbeast.trino.security.QbeastSecurityConfig.QbeastSecurity.READ_ONLY;

/**
 * Binds the catalog's {@code ConnectorAccessControl} (an optional binding) to the one
 * {@code qbeast.security} names; the implementations are trino-plugin-toolkit's, as in Trino's
 * Iceberg connector. The file-based one reads {@code security.config-file} and
 * {@code security.refresh-period} itself.
 */
public class QbeastSecurityModule
        extends AbstractConfigurationAwareModule
{
    @Override
    protected void setup(Binder binder)
    {
        install(new ConnectorAccessControlModule());
        bindIf(ALLOW_ALL, new AllowAllSecurityModule());
        bindIf(READ_ONLY, new ReadOnlySecurityModule());
        bindIf(FILE, new FileBasedAccessControlModule());
    }

    private void bindIf(QbeastSecurity security, Module module)
    {
        install(conditionalModule(QbeastSecurityConfig.class, config -> config.getSecurity() == security, module));
    }
}

package io.qbeast.trino.security;

import io.airlift.configuration.Config;
import io.airlift.configuration.ConfigDescription;
import jakarta.validation.constraints.NotNull;

/** The catalog property {@code qbeast.security}: who may do what in the catalog. */
public class QbeastSecurityConfig
{
    public enum QbeastSecurity
    {
        /** Everything is allowed (the system access control still applies). */
        ALLOW_ALL,
        /** Reading is allowed; anything that writes data or metadata is refused. */
        READ_ONLY,
        /** Trino's file-based connector rules, from {@code security.config-file}. */
        FILE,
    }

    private QbeastSecurity security = QbeastSecurity.ALLOW_ALL;

    @NotNull
    public QbeastSecurity getSecurity()
    {
        return security;
    }

    @Config("qbeast.security")
    @ConfigDescription("Access control of the catalog: ALLOW_ALL, READ_ONLY or FILE (rules in security.config-file)")
    public QbeastSecurityConfig setSecurity(QbeastSecurity security)
    {
        this.security = security;
        return this;
    }
}
